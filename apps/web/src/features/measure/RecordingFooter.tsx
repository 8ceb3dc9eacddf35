import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";

type Props =
  /** While connecting or recording: a way out. */
  | { state: "recording"; onCancel: () => void }
  /** The device could not start: what happened, try again or go back. */
  | { state: "failed"; message: string; onRetry: () => void; onBack: () => void }
  /** The recording ended badly: what happened, measure again, or keep what there is when it is enough. */
  | { state: "ended"; message: string; onAgain: () => void; keep?: { label: string; onKeep: () => void } };

/** The foot of the camera and strap panels: Cancel while recording, or what went wrong and the ways on. */
export function RecordingFooter(props: Props) {
  const { t } = useTranslation();
  if (props.state === "recording") {
    return (
      <div className="measure-actions">
        <Button variant="secondary" onClick={props.onCancel}>
          {t("measure.cancel")}
        </Button>
      </div>
    );
  }
  if (props.state === "failed") {
    return (
      <Alert status="error">
        <p>{props.message}</p>
        <div className="measure-actions">
          <Button variant="secondary" onClick={props.onRetry}>
            {t("common.retry")}
          </Button>
          <Button variant="ghost" onClick={props.onBack}>
            {t("measure.back")}
          </Button>
        </div>
      </Alert>
    );
  }
  return (
    <Alert status="error">
      <p>{props.message}</p>
      <div className="measure-actions">
        <Button onClick={props.onAgain}>{t("measure.measure_again")}</Button>
        {props.keep && (
          <Button variant="secondary" onClick={props.keep.onKeep}>
            {props.keep.label}
          </Button>
        )}
      </div>
    </Alert>
  );
}
