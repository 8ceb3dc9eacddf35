import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import {
  createBluetoothStrap,
  getBluetooth,
  type HeartRateStrap,
  StrapError,
  type StrapErrorCode,
} from "./capture/strap.ts";
import { createStrapRecorder, STRAP_DURATIONS_MS, type StrapSnapshot } from "./capture/strap-recorder.ts";
import { type CapturedRr, formatClock, nowIso } from "./captured.ts";
import { cleanSeries } from "./measure-api.ts";
import { ProgressRing } from "./ProgressRing.tsx";
import { RecordingFooter } from "./RecordingFooter.tsx";

const MIN_INTERVALS = 20;
const SHOWN_RR = 8;

type Props = {
  onComplete: (captured: CapturedRr) => void;
  onCancel: () => void;
  /** The strap to use; Web Bluetooth when the browser has it, none otherwise (tests pass a replay). */
  strap?: HeartRateStrap | null;
};

type State =
  | { kind: "idle" }
  | { kind: "connecting" }
  | { kind: "running"; snapshot: StrapSnapshot; deviceName: string }
  | { kind: "lost"; snapshot: StrapSnapshot; deviceName: string }
  | { kind: "error"; code: StrapErrorCode };

function defaultStrap(): HeartRateStrap | null {
  const bluetooth = getBluetooth();
  return bluetooth ? createBluetoothStrap(bluetooth) : null;
}

/** A Bluetooth heart-rate strap: live RR intervals, 2- or 5-minute recording. */
export function StrapPanel({ onComplete, onCancel, strap: givenStrap }: Props) {
  const { t } = useTranslation();
  const [strap] = useState(() => (givenStrap === undefined ? defaultStrap() : givenStrap));
  const [durationMs, setDurationMs] = useState<number>(STRAP_DURATIONS_MS[0]);
  const [state, setState] = useState<State>({ kind: "idle" });
  const isActive = useRef(false);

  useEffect(
    () => () => {
      isActive.current = false;
      strap?.disconnect();
    },
    [strap],
  );

  if (!strap) {
    return (
      <section className="card measure-panel" aria-labelledby="strap-title">
        <h2 id="strap-title" className="card__title">
          {t("measure.strap.title")}
        </h2>
        <Alert status="info">
          <p>{t("measure.strap.unsupported")}</p>
        </Alert>
        <div className="measure-actions">
          <Button variant="ghost" onClick={onCancel}>
            {t("measure.back")}
          </Button>
        </div>
      </section>
    );
  }

  const save = (snapshot: StrapSnapshot, deviceName: string, startedAt: string) => {
    onComplete({ ...cleanSeries(snapshot.rrMs), source: "strap", device: deviceName || null, startedAt });
  };

  const connect = async () => {
    const recorder = createStrapRecorder(durationMs);
    const startedAt = nowIso();
    let deviceName = "";
    let finished = false;
    isActive.current = true;
    setState({ kind: "connecting" });
    const onMeasurement = (measurement: Parameters<typeof recorder.push>[0]) => {
      if (!isActive.current || finished) return;
      recorder.push(measurement);
      const snapshot = recorder.snapshot();
      if (snapshot.isDone) {
        finished = true;
        isActive.current = false;
        strap.disconnect();
        save(snapshot, deviceName, startedAt);
        return;
      }
      setState({ kind: "running", snapshot, deviceName });
    };
    const onDisconnect = () => {
      if (!isActive.current || finished) return;
      isActive.current = false;
      setState({ kind: "lost", snapshot: recorder.snapshot(), deviceName });
    };
    try {
      ({ deviceName } = await strap.connect(onMeasurement, onDisconnect));
      if (isActive.current) setState({ kind: "running", snapshot: recorder.snapshot(), deviceName });
    } catch (error) {
      isActive.current = false;
      setState({ kind: "error", code: error instanceof StrapError ? error.code : "failed" });
    }
  };

  const cancel = () => {
    isActive.current = false;
    strap.disconnect();
    setState({ kind: "idle" });
    onCancel();
  };

  return (
    <section className="card measure-panel" aria-labelledby="strap-title">
      <h2 id="strap-title" className="card__title">
        {t("measure.strap.title")}
      </h2>
      {state.kind === "idle" && (
        <>
          <p>{t("measure.strap.intro")}</p>
          <fieldset className="measure-modes">
            <legend>{t("measure.mode.legend")}</legend>
            {STRAP_DURATIONS_MS.map((ms) => (
              <label key={ms}>
                <input
                  type="radio"
                  name="strap-mode"
                  checked={durationMs === ms}
                  onChange={() => setDurationMs(ms)}
                />{" "}
                {t("measure.mode.minutes", { count: ms / 60_000 })}
              </label>
            ))}
            <p className="field__hint">{t("measure.mode.five_minutes_hint")}</p>
          </fieldset>
          <div className="measure-actions">
            <Button onClick={() => void connect()}>{t("measure.strap.connect")}</Button>
            <Button variant="ghost" onClick={cancel}>
              {t("measure.back")}
            </Button>
          </div>
        </>
      )}
      {state.kind === "connecting" && <p aria-live="polite">{t("measure.strap.connecting")}</p>}
      {(state.kind === "running" || state.kind === "lost") && (
        <StrapLive snapshot={state.snapshot} durationMs={durationMs} deviceName={state.deviceName} />
      )}
      {(state.kind === "running" || state.kind === "connecting") && (
        <RecordingFooter state="recording" onCancel={cancel} />
      )}
      {state.kind === "lost" && (
        <RecordingFooter
          state="ended"
          message={t("measure.strap.lost")}
          onAgain={() => setState({ kind: "idle" })}
          keep={
            state.snapshot.rrMs.length >= MIN_INTERVALS
              ? {
                  label: t("measure.strap.keep_recorded"),
                  onKeep: () => save(state.snapshot, state.deviceName, nowIso()),
                }
              : undefined
          }
        />
      )}
      {state.kind === "error" && (
        <RecordingFooter
          state="failed"
          message={t(`measure.strap.error.${state.code}`)}
          onRetry={() => setState({ kind: "idle" })}
          onBack={cancel}
        />
      )}
    </section>
  );
}

function StrapLive({
  snapshot,
  durationMs,
  deviceName,
}: {
  snapshot: StrapSnapshot;
  durationMs: number;
  deviceName: string;
}) {
  const { t } = useTranslation();
  const first = Math.max(0, snapshot.rrMs.length - SHOWN_RR);
  const recent = snapshot.rrMs.slice(first).map((rr, offset) => ({ rr, beat: first + offset }));
  return (
    <div className="measure-live">
      {deviceName && <p className="muted">{t("measure.strap.connected", { name: deviceName })}</p>}
      {snapshot.hasNoContact && (
        <Alert status="error">
          <p>{t("measure.strap.no_contact")}</p>
        </Alert>
      )}
      {snapshot.lacksRr && (
        <Alert status="error">
          <p>{t("measure.strap.no_rr")}</p>
        </Alert>
      )}
      <div className="measure-live__row">
        <ProgressRing progress={snapshot.progress} label={t("measure.progress.label")}>
          <span className="measure-live__centre">{formatClock(durationMs - snapshot.recordedMs)}</span>
        </ProgressRing>
        <dl className="measure-live__readings">
          <div>
            <dt>{t("measure.live.heart_rate")}</dt>
            <dd data-testid="live-hr">
              {snapshot.hrBpm === undefined ? "—" : t("measure.units.bpm", { value: snapshot.hrBpm })}
            </dd>
          </div>
          <div>
            <dt>{t("measure.live.intervals")}</dt>
            <dd data-testid="rr-count">
              {t("measure.live.intervals_count", { count: snapshot.rrMs.length })}
            </dd>
          </div>
        </dl>
      </div>
      {recent.length > 0 && (
        <ul className="measure-rr" aria-label={t("measure.live.latest_rr")}>
          {recent.map(({ rr, beat }) => (
            <li key={beat}>{t("measure.units.ms", { value: Math.round(rr) })}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
