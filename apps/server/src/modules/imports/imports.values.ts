// Importer records → what the dashboard stores. Samples keep their metric, storage unit, source and
// client id; sleep stages become durations per stage; a workout becomes its duration, distance and energy.
import { createHash } from "node:crypto";
import { type ImportProblem, MEASUREMENT_LIMITS, METRICS } from "@tonus/contract";
import { analyzeRr, type RrAnalysis } from "@tonus/hrv";
import {
  type BloodPressureRecord,
  type ImportRecord,
  isDailyClientId,
  type RrSeriesRecord,
  type SampleRecord,
  type WorkoutRecord,
} from "@tonus/importers";
import { type ValueBatch, ValueBatchBuilder } from "../dashboard-values/dashboard-values.batch.ts";
import { type SampleBatch, SampleBatchBuilder } from "../dashboard-values/dashboard-values.samples.ts";
import type { DashboardValue } from "../dashboard-values/dashboard-values.service.ts";

/**
 * A UUID derived from a record's source and client id (the measurements and blood-pressure services key
 * their idempotency on a client UUID): the same record in a re-import gets the same UUID. RFC 9562
 * version 8 (custom) layout over the first 128 bits of SHA-256.
 */
export function importUuid(source: string, clientId: string): string {
  const h = createHash("sha256").update(`tonus-import\u0000${source}\u0000${clientId}`).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x80;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** Sleep stages, whatever the source calls them: total asleep goes to `sleep`, deep and REM also apart. */
const ASLEEP = new Set(["asleep", "core", "light", "deep", "rem"]);
/** FIT sleep levels (packages/importers `sleep_stage` values). */
const FIT_LEVELS: Record<number, string> = { 1: "awake", 2: "light", 3: "deep", 4: "rem" };

function sleepValues(r: SampleRecord, stage: string, durationS: number): DashboardValue[] {
  const at = new Date(r.at);
  const base = { at, value: durationS, source: r.source };
  if (!Number.isFinite(durationS) || durationS <= 0) return [];
  if (stage === "in_bed") return [{ ...base, metric: "sleep_in_bed", clientId: r.clientId }];
  if (stage === "awake") return [{ ...base, metric: "sleep_awake", clientId: r.clientId }];
  if (!ASLEEP.has(stage)) return [];
  const out: DashboardValue[] = [{ ...base, metric: "sleep", clientId: r.clientId }];
  if (stage === "deep" || stage === "rem")
    out.push({ ...base, metric: `sleep_${stage}`, clientId: `${r.clientId}:${stage}` });
  return out;
}

/**
 * The dashboard values of one sample; the first is the record's own (its client id decides whether the
 * record is new). Empty when the sample holds nothing storable (an unmeasurable sleep level).
 */
export function valuesOfSample(r: SampleRecord): DashboardValue[] {
  if (r.metric === "sleep") {
    return sleepValues(r, String(r.meta?.stage ?? "asleep"), r.value);
  }
  if (r.metric === "sleep_stage") {
    const stage = FIT_LEVELS[r.value];
    if (!stage || r.endAt === undefined) return [];
    return sleepValues(r, stage, (r.endAt - r.at) / 1000);
  }
  return [{ metric: r.metric, at: new Date(r.at), value: r.value, source: r.source, clientId: r.clientId }];
}

/** A workout as its duration (s), distance (m) and energy (J) at its start. */
export function valuesOfWorkout(w: WorkoutRecord): DashboardValue[] {
  const at = new Date(w.startedAt);
  const durationS = w.durationS ?? (w.endedAt - w.startedAt) / 1000;
  const out: DashboardValue[] = [
    { metric: "workout_duration", at, value: durationS, source: w.source, clientId: w.clientId },
  ];
  if (w.distanceM !== undefined)
    out.push({
      metric: "workout_distance",
      at,
      value: w.distanceM,
      source: w.source,
      clientId: `${w.clientId}:distance`,
    });
  if (w.energyJ !== undefined)
    out.push({
      metric: "workout_energy",
      at,
      value: w.energyJ,
      source: w.source,
      clientId: `${w.clientId}:energy`,
    });
  return out.filter((v) => Number.isFinite(v.value) && v.value >= 0);
}

/** One measurement's worth of an RR series: its start, its intervals and their analysis. */
export type RrPart = { startedAt: number; rrMs: number[]; analysis: RrAnalysis };

/** An RR series record split into measurements, analysed in the reader's thread (RELIABILITY R3). */
export type SplitRrSeries = Omit<RrSeriesRecord, "rrMs"> & { parts: RrPart[] };

/**
 * Splits a long RR series into measurements the measurements service accepts (at most one hour and
 * 5,000 intervals each); intervals outside its range are dropped (they are not beats).
 */
export function splitRrSeries(r: RrSeriesRecord): { startedAt: number; rrMs: number[] }[] {
  const valid = r.rrMs.filter((v) => v >= MEASUREMENT_LIMITS.rrMinMs && v <= MEASUREMENT_LIMITS.rrMaxMs);
  const parts: { startedAt: number; rrMs: number[] }[] = [];
  let current: number[] = [];
  let start = r.startedAt;
  let elapsed = 0;
  let sum = 0;
  for (const v of valid) {
    if (current.length >= MEASUREMENT_LIMITS.maxIntervals || sum + v > MEASUREMENT_LIMITS.maxDurationMs) {
      parts.push({ startedAt: start, rrMs: current });
      start = r.startedAt + elapsed;
      current = [];
      sum = 0;
    }
    current.push(v);
    sum += v;
    elapsed += v;
  }
  if (current.length > 0) parts.push({ startedAt: start, rrMs: current });
  return parts;
}

/**
 * The record split into measurements, each analysed as `storeMeasurement` would analyse its upload
 * (no breaks): the main thread then only scores them against the person's history.
 */
export function splitAndAnalyse(r: RrSeriesRecord): SplitRrSeries {
  const { rrMs: _whole, ...rest } = r;
  return {
    ...rest,
    parts: splitRrSeries(r).map((p) => ({ ...p, analysis: analyzeRr(p.rrMs, { breaks: [] }) })),
  };
}

/**
 * A batch's records as the job writes them: samples for the bulk store, daily totals encoded for COPY
 * (their id does not fix their time: `dashboard_values` finds them by id alone), and the records written
 * through services.
 */
export type EncodedRecords = {
  samples: SampleBatch;
  values: ValueBatch;
  /** RR series and blood-pressure readings, in file order (written through their modules). */
  slow: (SplitRrSeries | BloodPressureRecord)[];
  /** Records with nothing to store (an unmeasurable sleep level). */
  ignored: number;
  /** Records refused for a value outside its metric's plausible range, and the first few of them. */
  rejected: number;
  rejections: ImportProblem[];
};

/** Refused records kept in a batch's problems (the report keeps the first `KEPT_PROBLEMS` of the run). */
const KEPT_PER_BATCH = 20;

const RANGES: Record<string, readonly [number, number] | undefined> = Object.fromEntries(
  Object.entries(METRICS).map(([key, def]) => [key, def.range]),
);

/**
 * Whether a value lies outside its metric's plausible range (`METRICS`), the range manual entries, the
 * ingest API and the cloud connectors refuse values outside of: a heart rate of 900 is a device's error,
 * not a reading. A metric the catalogue does not know has no range.
 */
export function outOfRange(metric: string, value: number): boolean {
  const range = RANGES[metric];
  return range !== undefined && (value < range[0] || value > range[1]);
}

/**
 * Turns records into what the job writes, one at a time as they are read (in the reader thread, so the
 * writer only copies bytes and scores the RR series analysed here): each sample or workout's values,
 * its own value first and counted (it decides whether the record is new or a duplicate), the ones it
 * brings along not; a key repeated in the batch keeps its last value. `take` answers the batch so far.
 */
export class RecordEncoder {
  private readonly samples = new SampleBatchBuilder();
  private readonly totals = new ValueBatchBuilder();
  private slow: (SplitRrSeries | BloodPressureRecord)[] = [];
  private ignored = 0;
  private rejected = 0;
  private rejections: ImportProblem[] = [];

  add(r: ImportRecord): void {
    if (r.kind === "rr" || r.kind === "bp") {
      this.slow.push(r.kind === "rr" ? splitAndAnalyse(r) : r);
      return;
    }
    if (r.kind === "sample" && r.metric !== "sleep" && r.metric !== "sleep_stage") {
      // Most records: one value, straight from the record.
      if (outOfRange(r.metric, r.value)) this.refuse(r.metric, r.value, r.line);
      else if (!this.addValue(r.metric, r.at, r.value, r.source, r.clientId, true)) this.ignored++;
      return;
    }
    const values = r.kind === "sample" ? valuesOfSample(r) : valuesOfWorkout(r);
    const own = values[0];
    // The record's own value decides: out of range, the record is refused with the values it brings.
    if (own && outOfRange(own.metric, own.value)) {
      this.refuse(own.metric, own.value, r.kind === "sample" ? r.line : undefined);
      return;
    }
    let stored = false;
    values.forEach((v, i) => {
      if (i > 0 && outOfRange(v.metric, v.value)) return;
      const added = this.addValue(v.metric, v.at.getTime(), v.value, v.source, v.clientId, i === 0);
      if (added && i === 0) stored = true;
    });
    if (!stored) this.ignored++;
  }

  private addValue(
    metric: string,
    at: number,
    value: number,
    source: string,
    clientId: string,
    counted: boolean,
  ) {
    return isDailyClientId(clientId)
      ? this.totals.addValue(metric, at, value, source, clientId, counted)
      : this.samples.add(metric, at, value, source, clientId, counted);
  }

  private refuse(metric: string, value: number, line: number | undefined): void {
    this.rejected++;
    if (this.rejections.length < KEPT_PER_BATCH)
      this.rejections.push({
        reason: "out_of_range",
        detail: `${metric} ${value}`,
        ...(line !== undefined ? { line } : {}),
      });
  }

  take(): EncodedRecords {
    const out = {
      samples: this.samples.build(),
      values: this.totals.build(),
      slow: this.slow,
      ignored: this.ignored,
      rejected: this.rejected,
      rejections: this.rejections,
    };
    this.slow = [];
    this.ignored = 0;
    this.rejected = 0;
    this.rejections = [];
    return out;
  }
}
