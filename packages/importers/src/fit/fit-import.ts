// FIT messages → Tonus records. Message and field numbers, scales and units follow the FIT profile
// (Profile.xlsx of the FIT SDK): only the messages Tonus stores are decoded, the rest are counted.
import { ImportInputError } from "../errors.ts";
import { createReport, createSession, fail, warn } from "../report.ts";
import type {
  ImportOptions,
  ImportRecord,
  ImportReport,
  ImportSession,
  SampleRecord,
  Unit,
} from "../types.ts";
import { FIT_EPOCH_S, FitDecoder, type FitMessage, type FitValue } from "./decoder.ts";

/** Global message numbers Tonus reads. */
export const FIT_MESSAGE = {
  fileId: 0,
  session: 18,
  record: 20,
  weightScale: 30,
  monitoring: 55,
  hrv: 78,
  spo2Data: 269,
  sleepLevel: 275,
  beatIntervals: 290,
  respirationRate: 297,
  hrvValue: 371,
} as const;

const WANTED = new Set<number>(Object.values(FIT_MESSAGE));
// Activity files are mostly `record` messages: decode only their timestamp and heart rate.
const FIELDS = new Map<number, ReadonlySet<number>>([
  [FIT_MESSAGE.record, new Set([253, 3])],
  [FIT_MESSAGE.monitoring, new Set([253, 3, 5, 24, 26, 27])],
]);
/** Timestamps below this are seconds since device power-on, not dates (FIT `date_time` min). */
const MIN_DATE_TIME = 0x10000000;
/** `hrv` and `beat_intervals` values outside this range are kept but counted in a warning (U7). */
const RR_PLAUSIBLE_MS = [200, 3000] as const;

const SLEEP_STAGES = ["unmeasurable", "awake", "light", "deep", "rem"] as const;
const SPORTS: Record<number, string> = {
  0: "generic",
  1: "running",
  2: "cycling",
  4: "fitness_equipment",
  5: "swimming",
  10: "training",
  11: "walking",
  12: "cross_country_skiing",
  13: "alpine_skiing",
  15: "rowing",
  17: "hiking",
  18: "multisport",
  19: "paddling",
};

function num(v: FitValue | undefined): number | undefined {
  return typeof v === "number" ? v : undefined;
}

function nums(v: FitValue | undefined): number[] {
  if (typeof v === "number") return [v];
  return Array.isArray(v) ? v : [];
}

function toMs(fitSeconds: number): number {
  return (fitSeconds + FIT_EPOCH_S) * 1000;
}

/**
 * FIT manufacturer ids (the FIT profile's `manufacturer` type) of the brands the dashboard ranks, and the
 * source their files' records are stored under; any other maker's file stays `fit`.
 */
const BRANDS: Readonly<Record<number, string>> = {
  1: "garmin",
  13: "garmin", // dynastream_oem (Garmin's ANT+ subsidiary)
  15: "garmin", // dynastream
  23: "suunto",
  32: "wahoo",
  123: "polar",
  294: "coros",
};

/** The source of a FIT file's records: its maker's brand from `file_id.manufacturer`, else `fit`. */
export function fitSourceOf(manufacturer: number | undefined): string {
  return (manufacturer !== undefined ? BRANDS[manufacturer] : undefined) ?? "fit";
}

type Context = {
  source: string;
  /** The caller named the source: the file's maker does not change it. */
  sourceGiven: boolean;
  fileKey: string;
  report: ImportReport;
  rr: number[];
  rrStartedAt?: number;
  createdAt?: number;
  sleep?: { at: number; level: number };
  /** Last cumulative `cycles` per activity type in monitoring messages. */
  cycles: Map<number, number>;
};

/**
 * Reads a FIT file (Garmin, Polar, Suunto, Wahoo, Coros: activity, monitoring, sleep, weight scale)
 * from chunks and yields records:
 * - `record` and `monitoring` heart rate → `heart_rate` (bpm);
 * - `hrv` (seconds, ≤ 5 per message) and `beat_intervals` (ms) → one RR series per file, started at the
 *   last timestamp before its first beat (the file's creation time if none); beats outside 200–3000 ms
 *   are kept and counted in a warning;
 * - `weight_scale` → `weight`, `body_fat`, `body_water`, `muscle_mass`, `bone_mass` (kg or %);
 * - `sleep_level` → `sleep_stage` (value 1 awake, 2 light, 3 deep, 4 rem; `endAt` = next level's time);
 * - `hrv_value` → `rmssd` (s), `spo2_data` → `spo2` (%), `respiration_rate` → `respiratory_rate` (1/min);
 * - `session` → a workout.
 * Records are stored under the maker's brand (`garmin`, `polar`, `suunto`, `wahoo`, `coros`, from
 * `file_id.manufacturer`; `fit` for any other) unless `options.source` names one.
 * `clientId`s derive from the file id (serial number and creation time), so re-importing the same file
 * repeats them. A damaged file ends with `report.fatal` (`invalid_header`, `unexpected_eof`,
 * `invalid_record`, `crc_mismatch`, `empty_file`); what was decoded before the damage is still yielded.
 */
export function importFit(input: AsyncIterable<Uint8Array>, options: ImportOptions = {}): ImportSession {
  const report = createReport("fit");
  return createSession(report, run(input, options, report));
}

async function* run(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions,
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  const decoder = new FitDecoder({ messages: WANTED, fields: FIELDS });
  const ctx: Context = {
    source: options.source ?? "fit",
    sourceGiven: options.source !== undefined,
    fileKey: "nofileid",
    report,
    rr: [],
    cycles: new Map(),
  };
  try {
    for await (const chunk of guard(input, report)) {
      if (options.signal?.aborted) {
        fail(report, { reason: "aborted", offset: decoder.offset });
        break;
      }
      report.bytesRead += chunk.length;
      const batch: ImportRecord[] = [];
      for (const msg of decoder.push(chunk)) {
        for (const rec of toRecords(msg, ctx)) batch.push(rec);
      }
      report.emitted += batch.length;
      if (batch.length > 0) yield batch;
      if (decoder.error) break;
    }
    if (!report.fatal) decoder.finish();
    // An input that failed (a zip entry's bad CRC) leaves the decoder mid-file: the input's reason stands.
    if (decoder.error) fail(report, decoder.error);
    const tail = flush(ctx);
    report.emitted += tail.length;
    if (tail.length > 0) yield tail;
  } finally {
    report.read = [...decoder.counts.values()].reduce((a, b) => a + b, 0);
    if (decoder.developerFieldsSkipped > 0) {
      warn(report, { reason: "unsupported_type", detail: `developer fields skipped` });
    }
    report.done = true;
  }
}

/** Passes chunks through, ending quietly (with the report's fatal set) when the input reports bad data. */
async function* guard(input: AsyncIterable<Uint8Array>, report: ImportReport): AsyncGenerator<Uint8Array> {
  try {
    yield* input;
  } catch (e) {
    if (!(e instanceof ImportInputError)) throw e;
    fail(report, e.rejection);
  }
}

function sample(ctx: Context, metric: string, atMs: number, value: number, unit: Unit): SampleRecord {
  return {
    kind: "sample",
    metric,
    at: atMs,
    value,
    unit,
    source: ctx.source,
    clientId: `${ctx.fileKey}:${metric}:${atMs}`,
  };
}

function timeOf(msg: FitMessage, ctx: Context): number | undefined {
  let ts = msg.timestamp;
  // monitoring's timestamp_16 (field 26): low 16 bits of the time, relative to the last full timestamp.
  const ts16 = msg.global === FIT_MESSAGE.monitoring ? num(msg.fields.get(26)) : undefined;
  if (ts === undefined && ts16 !== undefined && msg.lastTimestamp !== undefined) {
    ts = msg.lastTimestamp + ((ts16 - (msg.lastTimestamp & 0xffff)) & 0xffff);
  }
  if (ts === undefined || ts < MIN_DATE_TIME) {
    warn(ctx.report, {
      reason: "invalid_date",
      offset: msg.offset,
      detail: `message ${msg.global} without a date`,
    });
    return undefined;
  }
  return toMs(ts);
}

function toRecords(msg: FitMessage, ctx: Context): ImportRecord[] {
  const f = msg.fields;
  switch (msg.global) {
    case FIT_MESSAGE.fileId: {
      const created = num(f.get(4));
      ctx.fileKey = `${num(f.get(1)) ?? 0}-${num(f.get(3)) ?? 0}-${created ?? 0}`;
      if (!ctx.sourceGiven) ctx.source = fitSourceOf(num(f.get(1)));
      if (created !== undefined && created >= MIN_DATE_TIME) ctx.createdAt = toMs(created);
      return [];
    }
    case FIT_MESSAGE.hrv:
    case FIT_MESSAGE.beatIntervals: {
      // `hrv.time` (field 0) has scale 1000 on seconds and `beat_intervals.time` (field 1) is in ms: both
      // raw values are milliseconds.
      const beats = nums(f.get(msg.global === FIT_MESSAGE.hrv ? 0 : 1));
      if (ctx.rr.length === 0 && msg.lastTimestamp !== undefined) ctx.rrStartedAt = toMs(msg.lastTimestamp);
      for (const ms of beats) ctx.rr.push(ms);
      return [];
    }
    case FIT_MESSAGE.monitoring:
      return monitoringRecords(msg, ctx);
    case FIT_MESSAGE.record: {
      const hr = num(f.get(3));
      if (hr === undefined) return [];
      const at = timeOf(msg, ctx);
      return at === undefined ? [] : [sample(ctx, "heart_rate", at, hr, "bpm")];
    }
    case FIT_MESSAGE.weightScale:
      return weightRecords(msg, ctx);
    case FIT_MESSAGE.sleepLevel:
      return sleepRecords(msg, ctx);
    case FIT_MESSAGE.hrvValue:
    case FIT_MESSAGE.spo2Data:
    case FIT_MESSAGE.respirationRate: {
      const raw = num(f.get(0));
      const at = raw === undefined ? undefined : timeOf(msg, ctx);
      if (raw === undefined || at === undefined) return [];
      if (msg.global === FIT_MESSAGE.hrvValue) return [sample(ctx, "rmssd", at, raw / 128 / 1000, "s")];
      if (msg.global === FIT_MESSAGE.spo2Data) return [sample(ctx, "spo2", at, raw, "%")];
      return raw < 0 ? [] : [sample(ctx, "respiratory_rate", at, raw / 100, "1/min")];
    }
    case FIT_MESSAGE.session:
      return sessionRecords(msg, ctx);
    default:
      return [];
  }
}

/** FIT activity types whose monitoring `cycles` are steps (walking, running). */
const STEP_ACTIVITIES = new Set([1, 6]);

/**
 * Monitoring: heart rate as is; `cycles` is a running total per activity type since the day began, so
 * a message yields the steps taken since the previous total of its type (walking and running only).
 */
function monitoringRecords(msg: FitMessage, ctx: Context): ImportRecord[] {
  const hr = num(msg.fields.get(27));
  const cycles = num(msg.fields.get(3));
  if (hr === undefined && cycles === undefined) return [];
  const at = timeOf(msg, ctx);
  if (at === undefined) return [];
  const out: ImportRecord[] = [];
  if (hr !== undefined) out.push(sample(ctx, "heart_rate", at, hr, "bpm"));
  // activity_type (field 5) or the low 5 bits of current_activity_type_intensity (field 24)
  const type = num(msg.fields.get(5)) ?? (num(msg.fields.get(24)) ?? 0x1f) & 0x1f;
  if (cycles !== undefined && STEP_ACTIVITIES.has(type)) {
    const previous = ctx.cycles.get(type) ?? 0;
    // A smaller total means a new day began.
    const steps = cycles >= previous ? cycles - previous : cycles;
    ctx.cycles.set(type, cycles);
    if (steps > 0) {
      const rec = sample(ctx, "steps", at, steps, "count");
      rec.clientId = `${ctx.fileKey}:steps:${at}:${type}`;
      out.push(rec);
    }
  }
  return out;
}

function weightRecords(msg: FitMessage, ctx: Context): ImportRecord[] {
  const at = timeOf(msg, ctx);
  if (at === undefined) return [];
  const out: ImportRecord[] = [];
  // weight 0xFFFE means "calculating": no reading yet.
  const weight = num(msg.fields.get(0));
  if (weight !== undefined && weight !== 0xfffe) out.push(sample(ctx, "weight", at, weight / 100, "kg"));
  const scaled: [number, string, Unit][] = [
    [1, "body_fat", "%"],
    [2, "body_water", "%"],
    [5, "muscle_mass", "kg"],
    [4, "bone_mass", "kg"],
  ];
  for (const [field, metric, unit] of scaled) {
    const v = num(msg.fields.get(field));
    if (v !== undefined) out.push(sample(ctx, metric, at, v / 100, unit));
  }
  const profile = num(msg.fields.get(12));
  if (profile !== undefined) for (const r of out) r.meta = { userProfileIndex: profile };
  return out;
}

function sleepRecords(msg: FitMessage, ctx: Context): ImportRecord[] {
  const at = timeOf(msg, ctx);
  const level = num(msg.fields.get(0));
  const previous = ctx.sleep;
  ctx.sleep = at !== undefined && level !== undefined ? { at, level } : undefined;
  if (!previous || previous.level === 0) return [];
  const rec = sample(ctx, "sleep_stage", previous.at, previous.level, "count");
  if (at !== undefined && at > previous.at) rec.endAt = at;
  rec.meta = { stage: SLEEP_STAGES[previous.level] ?? `level_${previous.level}` };
  return [rec];
}

function sessionRecords(msg: FitMessage, ctx: Context): ImportRecord[] {
  const start = num(msg.fields.get(2));
  const elapsedMs = num(msg.fields.get(7));
  if (start === undefined || start < MIN_DATE_TIME || elapsedMs === undefined) return [];
  const startedAt = toMs(start);
  const sport = num(msg.fields.get(5)) ?? 0;
  const rec: ImportRecord = {
    kind: "workout",
    startedAt,
    endedAt: startedAt + elapsedMs,
    activity: SPORTS[sport] ?? `sport_${sport}`,
    durationS: (num(msg.fields.get(8)) ?? elapsedMs) / 1000,
    source: ctx.source,
    clientId: `${ctx.fileKey}:workout:${startedAt}`,
  };
  const distance = num(msg.fields.get(9));
  if (distance !== undefined) rec.distanceM = distance / 100;
  const kcal = num(msg.fields.get(11));
  if (kcal !== undefined) rec.energyJ = kcal * 4184;
  return [rec];
}

function flush(ctx: Context): ImportRecord[] {
  const out: ImportRecord[] = [];
  if (ctx.sleep && ctx.sleep.level !== 0) {
    const rec = sample(ctx, "sleep_stage", ctx.sleep.at, ctx.sleep.level, "count");
    rec.meta = { stage: SLEEP_STAGES[ctx.sleep.level] ?? `level_${ctx.sleep.level}` };
    out.push(rec);
  }
  const startedAt = ctx.rrStartedAt ?? ctx.createdAt;
  if (ctx.rr.length > 0 && startedAt !== undefined) {
    const outside = ctx.rr.filter((ms) => ms < RR_PLAUSIBLE_MS[0] || ms > RR_PLAUSIBLE_MS[1]).length;
    if (outside > 0)
      warn(ctx.report, { reason: "out_of_range", detail: `${outside} beat intervals outside 200-3000 ms` });
    out.push({
      kind: "rr",
      startedAt,
      rrMs: ctx.rr,
      source: ctx.source,
      clientId: `${ctx.fileKey}:rr:${startedAt}`,
    });
  }
  return out;
}
