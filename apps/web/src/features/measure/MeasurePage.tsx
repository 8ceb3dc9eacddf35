import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { Button } from "../../shared/ui/Button.tsx";
import { CameraPanel } from "./CameraPanel.tsx";
import type { CapturedRr } from "./captured.ts";
import { FilePanel } from "./FilePanel.tsx";
import { detailPagePath, getUploadQueue, onQueueChange } from "./measure-api.ts";
import { SaveForm } from "./SaveForm.tsx";
import { StrapPanel } from "./StrapPanel.tsx";
import "./measure.css";

type Step =
  | { kind: "choose" }
  | { kind: "camera" | "strap" | "file" }
  | { kind: "save"; captured: CapturedRr };

const WAYS = ["camera", "strap", "file"] as const;

/** /measure: measure with the camera or a strap, or import an RR file; then feel, mood, tags and save. */
export default function MeasurePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [step, setStep] = useState<Step>({ kind: "choose" });
  const waiting = useQueuedCount();
  const back = () => setStep({ kind: "choose" });
  const onComplete = (captured: CapturedRr) => setStep({ kind: "save", captured });

  switch (step.kind) {
    case "camera":
      return <CameraPanel onComplete={onComplete} onCancel={back} />;
    case "strap":
      return <StrapPanel onComplete={onComplete} onCancel={back} />;
    case "file":
      return <FilePanel onComplete={onComplete} onCancel={back} />;
    case "save":
      return (
        <SaveForm captured={step.captured} onSaved={(id) => navigate(detailPagePath(id))} onDiscard={back} />
      );
  }
  return (
    <>
      <p className="muted">{t("measure.intro")}</p>
      {waiting > 0 && (
        <p className="alert alert--info" role="status">
          {t("measure.queue.waiting", { count: waiting })}
        </p>
      )}
      <ul className="measure-ways">
        {WAYS.map((way) => (
          <li key={way} className="card">
            <h2 className="card__title">{t(`measure.${way}.title`)}</h2>
            <p>{t(`measure.${way}.summary`)}</p>
            <Button onClick={() => setStep({ kind: way })}>{t(`measure.${way}.choose`)}</Button>
          </li>
        ))}
      </ul>
      <p>
        <Link to="/measurements">{t("measure.history_link")}</Link>
      </p>
    </>
  );
}

/** How many of the signed-in account's measurements wait in the offline queue (the app shell flushes it). */
function useQueuedCount(): number {
  const [count, setCount] = useState(() => getUploadQueue().list().length);
  useEffect(() => {
    const queue = getUploadQueue();
    const refresh = () => setCount(queue.list().length);
    refresh();
    return onQueueChange(refresh);
  }, []);
  return count;
}
