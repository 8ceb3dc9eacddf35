import type { Pacer as PacerSettings } from "@tonus/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";
import { breathsPerMinute, pacerPhase } from "./pacer-phase.ts";

const TICK_MS = 100;

/**
 * The on-screen paced-breathing timer: a circle that grows while breathing in and shrinks while
 * breathing out, with the phase in words (announced politely) and the time left. Start, pause, reset.
 */
export function Pacer({ pacer }: { pacer: PacerSettings }) {
  const { t, i18n } = useTranslation();
  const [elapsedMs, setElapsedMs] = useState(0);
  const [isRunning, setRunning] = useState(false);
  const startedAt = useRef(0);

  useEffect(() => {
    if (!isRunning) return;
    const timer = window.setInterval(() => setElapsedMs(performance.now() - startedAt.current), TICK_MS);
    return () => window.clearInterval(timer);
  }, [isRunning]);

  const toggle = () => {
    // A pause keeps the elapsed time, so starting again resumes where it stopped.
    if (!isRunning) startedAt.current = performance.now() - elapsedMs;
    setRunning(!isRunning);
  };

  const state = pacerPhase(pacer, elapsedMs);
  useEffect(() => {
    if (state.phase === "done") setRunning(false);
  }, [state.phase]);

  const scale =
    state.phase === "inhale"
      ? 0.5 + 0.5 * state.progress
      : state.phase === "exhale"
        ? 1 - 0.5 * state.progress
        : 0.5;
  const minutes = Math.floor(state.secondsLeft / 60);
  const seconds = String(state.secondsLeft % 60).padStart(2, "0");
  const rate = new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 1 }).format(
    breathsPerMinute(pacer),
  );

  return (
    <section className="card academy-pacer" aria-labelledby="academy-pacer-title">
      <h3 id="academy-pacer-title">{t("academy.pacer.title")}</h3>
      <p className="muted">
        {t("academy.pacer.settings", { inhale: pacer.inhale_s, exhale: pacer.exhale_s, rate })}
      </p>
      <div className="academy-pacer__stage" aria-hidden="true">
        <div className="academy-pacer__circle" style={{ transform: `scale(${scale})` }} />
      </div>
      <p className="academy-pacer__phase" aria-live="polite">
        {isRunning || elapsedMs > 0 ? t(`academy.pacer.${state.phase}`) : t("academy.pacer.ready")}
      </p>
      <p className="academy-pacer__time">{t("academy.pacer.left", { time: `${minutes}:${seconds}` })}</p>
      <p className="actions">
        {state.phase !== "done" && (
          <Button onClick={toggle}>
            {isRunning
              ? t("academy.pacer.pause")
              : elapsedMs > 0
                ? t("academy.pacer.resume")
                : t("academy.pacer.start")}
          </Button>
        )}
        {elapsedMs > 0 && (
          <Button
            variant="secondary"
            onClick={() => {
              setRunning(false);
              setElapsedMs(0);
            }}
          >
            {t("academy.pacer.reset")}
          </Button>
        )}
      </p>
    </section>
  );
}
