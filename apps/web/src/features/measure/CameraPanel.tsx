import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import {
  CameraError,
  type CameraErrorCode,
  type CameraSource,
  createBrowserCamera,
} from "./capture/camera.ts";
import {
  CAMERA_BEATS_MODE,
  CAMERA_TIME_MODE,
  type CameraSnapshot,
  createPpgRecorder,
  type PpgRecorder,
} from "./capture/ppg-recorder.ts";
import { type CapturedRr, formatClock, nowIso } from "./captured.ts";
import { LiveWaveform } from "./LiveWaveform.tsx";
import { cleanSeries } from "./measure-api.ts";
import { ProgressRing } from "./ProgressRing.tsx";
import { RecordingFooter } from "./RecordingFooter.tsx";

const MIN_INTERVALS = 20;
const SNAPSHOT_EVERY_MS = 250;

type Props = {
  onComplete: (captured: CapturedRr) => void;
  onCancel: () => void;
  /** The frame source; the rear camera unless a test passes synthetic frames. */
  createSource?: (video: HTMLVideoElement) => CameraSource;
};

type State =
  | { kind: "idle" }
  | { kind: "starting" }
  | { kind: "running"; snapshot: CameraSnapshot; hasTorch: boolean }
  | { kind: "error"; code: CameraErrorCode }
  | { kind: "poor"; reason: "not_enough" | "poor_signal"; captured: CapturedRr | null };

/** Camera measurement: guidance, live pulse wave and heart rate, quality, progress, pause on a lifted finger. */
export function CameraPanel({ onComplete, onCancel, createSource = createBrowserCamera }: Props) {
  const { t } = useTranslation();
  const videoRef = useRef<HTMLVideoElement>(null);
  const sourceRef = useRef<CameraSource | null>(null);
  const recorderRef = useRef<PpgRecorder | null>(null);
  const [isBeatsMode, setBeatsMode] = useState(false);
  const [state, setState] = useState<State>({ kind: "idle" });

  const stop = () => {
    sourceRef.current?.stop();
    sourceRef.current = null;
  };
  useEffect(() => () => sourceRef.current?.stop(), []);

  const finish = (startedAt: string) => {
    stop();
    const recorder = recorderRef.current;
    if (!recorder) return;
    const result = recorder.finish();
    const { rrMs, rrBreaks } = cleanSeries(result.rrMs, result.rrBreaks);
    const captured: CapturedRr = { rrMs, rrBreaks, source: "camera", device: null, startedAt };
    if (rrMs.length < MIN_INTERVALS || result.issues.includes("no_finger")) {
      setState({ kind: "poor", reason: "not_enough", captured: null });
    } else if (result.issues.includes("poor_signal")) {
      setState({ kind: "poor", reason: "poor_signal", captured });
    } else {
      onComplete(captured);
    }
  };

  const start = async () => {
    const video = videoRef.current;
    if (!video) return;
    const recorder = createPpgRecorder(isBeatsMode ? CAMERA_BEATS_MODE : CAMERA_TIME_MODE);
    recorderRef.current = recorder;
    setState({ kind: "starting" });
    const source = createSource(video);
    sourceRef.current = source;
    const startedAt = nowIso();
    try {
      const { hasTorch } = await source.start((colour, timeMs) => recorder.pushFrame(colour, timeMs));
      setState({ kind: "running", snapshot: recorder.snapshot(), hasTorch });
    } catch (error) {
      stop();
      setState({ kind: "error", code: error instanceof CameraError ? error.code : "failed" });
      return;
    }
    const timer = window.setInterval(() => {
      if (sourceRef.current !== source) {
        window.clearInterval(timer);
        return;
      }
      const snapshot = recorder.snapshot();
      if (snapshot.phase === "done") {
        window.clearInterval(timer);
        finish(startedAt);
        return;
      }
      setState((previous) => (previous.kind === "running" ? { ...previous, snapshot } : previous));
    }, SNAPSHOT_EVERY_MS);
  };

  const cancel = () => {
    stop();
    setState({ kind: "idle" });
    onCancel();
  };

  const isRunning = state.kind === "running" || state.kind === "starting";

  return (
    <section className="card measure-panel" aria-labelledby="camera-title">
      <h2 id="camera-title" className="card__title">
        {t("measure.camera.title")}
      </h2>
      {/* The preview stays tiny: it only shows that the camera sees the fingertip. */}
      <video ref={videoRef} className="measure-video" muted playsInline hidden={!isRunning} />
      {state.kind === "idle" && (
        <>
          <ol className="measure-steps">
            <li>{t("measure.camera.step_cover")}</li>
            <li>{t("measure.camera.step_still")}</li>
            <li>{t("measure.camera.step_wait")}</li>
          </ol>
          <fieldset className="measure-modes">
            <legend>{t("measure.mode.legend")}</legend>
            <label>
              <input
                type="radio"
                name="camera-mode"
                checked={!isBeatsMode}
                onChange={() => setBeatsMode(false)}
              />{" "}
              {t("measure.mode.two_minutes")}
            </label>
            <label>
              <input
                type="radio"
                name="camera-mode"
                checked={isBeatsMode}
                onChange={() => setBeatsMode(true)}
              />{" "}
              {t("measure.mode.beats", {
                count: CAMERA_BEATS_MODE.kind === "beats" ? CAMERA_BEATS_MODE.beats : 0,
              })}
            </label>
            <p className="field__hint">{t("measure.mode.beats_hint")}</p>
          </fieldset>
          <div className="measure-actions">
            <Button onClick={() => void start()}>{t("measure.camera.start")}</Button>
            <Button variant="ghost" onClick={cancel}>
              {t("measure.back")}
            </Button>
          </div>
        </>
      )}
      {state.kind === "starting" && <p aria-live="polite">{t("measure.camera.starting")}</p>}
      {state.kind === "running" && (
        <RunningView
          snapshot={state.snapshot}
          hasTorch={state.hasTorch}
          isBeatsMode={isBeatsMode}
          readWave={(out) => recorderRef.current?.waveform(out) ?? 0}
        />
      )}
      {isRunning && <RecordingFooter state="recording" onCancel={cancel} />}
      {state.kind === "error" && (
        <RecordingFooter
          state="failed"
          message={t(`measure.camera.error.${state.code}`)}
          onRetry={() => setState({ kind: "idle" })}
          onBack={cancel}
        />
      )}
      {state.kind === "poor" && (
        <RecordingFooter
          state="ended"
          message={t(`measure.camera.${state.reason}`)}
          onAgain={() => setState({ kind: "idle" })}
          keep={
            state.captured
              ? {
                  label: t("measure.camera.keep_anyway"),
                  onKeep: () => state.captured && onComplete(state.captured),
                }
              : undefined
          }
        />
      )}
    </section>
  );
}

function RunningView({
  snapshot,
  hasTorch,
  isBeatsMode,
  readWave,
}: {
  snapshot: CameraSnapshot;
  hasTorch: boolean;
  isBeatsMode: boolean;
  readWave: (out: Float32Array) => number;
}) {
  const { t } = useTranslation();
  const centre = isBeatsMode
    ? t("measure.progress.beats", { count: snapshot.beatCount })
    : formatClock(Math.max(0, 120_000 - snapshot.recordedMs));
  return (
    <div className="measure-live">
      {snapshot.phase === "waiting" && (
        <p className="measure-guidance" aria-live="polite">
          {t(hasTorch ? "measure.camera.place_finger_torch" : "measure.camera.place_finger")}
        </p>
      )}
      {snapshot.phase === "paused" && (
        <Alert status="error">
          <p>{t("measure.camera.finger_lifted")}</p>
        </Alert>
      )}
      <div className="measure-live__row">
        <ProgressRing progress={snapshot.progress} label={t("measure.progress.label")}>
          <span className="measure-live__centre">{centre}</span>
        </ProgressRing>
        <dl className="measure-live__readings">
          <div>
            <dt>{t("measure.live.heart_rate")}</dt>
            <dd aria-live="off" data-testid="live-hr">
              {snapshot.hrBpm === undefined
                ? "—"
                : t("measure.units.bpm", { value: Math.round(snapshot.hrBpm) })}
            </dd>
          </div>
          <div>
            <dt>{t("measure.live.quality")}</dt>
            <dd className={`measure-quality measure-quality--${snapshot.quality}`}>
              {t(`measure.live.quality_${snapshot.quality}`)}
            </dd>
          </div>
        </dl>
      </div>
      <LiveWaveform read={readWave} />
    </div>
  );
}
