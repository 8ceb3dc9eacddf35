// Apple Health export.xml → Tonus records, streaming: the scanner keeps only unfinished markup between
// chunks and this layer only the element being read (a Record with its beats, a Correlation, a Workout).
import { createReport, fail, reject, warn } from "../report.ts";
import type { ImportOptions, ImportRecord, ImportReport, ImportSession } from "../types.ts";
import {
  activityName,
  BLOOD_PRESSURE_CORRELATION,
  convertQuantity,
  parseHealthDate,
  QUANTITY_TYPES,
  SLEEP_STAGES,
  SLEEP_TYPE,
  workoutFactor,
} from "./types-map.ts";
import { cleanXmlValue, type XmlAttributes, type XmlHandler, XmlScanner } from "./xml-scanner.ts";

const WANTED = new Set([
  "Record",
  "Correlation",
  "Workout",
  "WorkoutStatistics",
  "InstantaneousBeatsPerMinute",
  "HealthData",
]);

type OpenRecord = { attrs: XmlAttributes | null; offset: number; bpm: number[] };
type OpenCorrelation = { attrs: XmlAttributes | null; offset: number; systolic?: number; diastolic?: number };
type OpenWorkout = { attrs: XmlAttributes | null; offset: number; distanceM?: number; energyJ?: number };

/** Two 32-bit FNV-1a hashes of `s` as 16 hex digits: a short, stable id for a record with no id. */
export function hashId(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

class AppleHealthMapper implements XmlHandler {
  readonly out: ImportRecord[] = [];
  private record: OpenRecord | null = null;
  private correlation: OpenCorrelation | null = null;
  private workout: OpenWorkout | null = null;

  private readonly report: ImportReport;
  private readonly source: string;

  constructor(report: ImportReport, source: string) {
    this.report = report;
    this.source = source;
  }

  doctype(info: { entities: number; external: boolean }): void {
    warn(this.report, {
      reason: "xml_entity_declared",
      detail: `DOCTYPE ignored (${info.entities} entities${info.external ? ", external id" : ""}); nothing expanded`,
    });
  }

  open(name: string, attrs: XmlAttributes | null, _selfClosing: boolean, offset: number): void {
    switch (name) {
      case "Record":
        this.report.read++;
        this.record = { attrs, offset, bpm: [] };
        return;
      case "Correlation":
        this.report.read++;
        this.correlation = { attrs, offset };
        return;
      case "Workout":
        this.report.read++;
        this.workout = { attrs, offset };
        return;
      case "WorkoutStatistics":
        if (this.workout && attrs) this.addWorkoutStatistics(this.workout, attrs);
        return;
      case "InstantaneousBeatsPerMinute": {
        const bpm = Number(attrs?.bpm);
        if (this.record && bpm > 0 && Number.isFinite(bpm)) this.record.bpm.push(bpm);
        return;
      }
    }
  }

  close(name: string): void {
    if (name === "Record" && this.record) {
      this.closeRecord(this.record);
      this.record = null;
    } else if (name === "Correlation" && this.correlation) {
      this.closeCorrelation(this.correlation);
      this.correlation = null;
    } else if (name === "Workout" && this.workout) {
      this.closeWorkout(this.workout);
      this.workout = null;
    }
  }

  private emit(rec: ImportRecord): void {
    this.report.emitted++;
    this.out.push(rec);
  }

  private closeRecord(r: OpenRecord): undefined {
    const a = r.attrs;
    if (!a)
      return reject(this.report, {
        reason: "invalid_record",
        offset: r.offset,
        detail: "malformed attribute",
      });
    const type = a.type ?? "";
    const inBp = this.correlation !== null && type.startsWith("HKQuantityTypeIdentifierBloodPressure");
    if (type === SLEEP_TYPE) return this.emitSleep(a, r.offset);
    const mapping = QUANTITY_TYPES[type];
    if (!mapping) {
      this.report.ignored++;
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(type) });
    }
    const raw = Number(a.value);
    if (a.value === undefined || !Number.isFinite(raw)) {
      return reject(this.report, { reason: "invalid_value", offset: r.offset, detail: `${type} value` });
    }
    const at = parseHealthDate(a.startDate ?? "");
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: r.offset, detail: "startDate" });
    const value = convertQuantity(mapping, raw, a.unit ?? "");
    if (value === undefined) {
      return reject(this.report, {
        reason: "unknown_unit",
        offset: r.offset,
        detail: cleanXmlValue(a.unit ?? ""),
      });
    }
    if (inBp && this.correlation) {
      if (mapping.metric === "bp_systolic") this.correlation.systolic = value;
      else this.correlation.diastolic = value;
      return;
    }
    const endAt = parseHealthDate(a.endDate ?? "");
    const key = hashId(`${type}|${a.sourceName}|${a.startDate}|${a.endDate}|${a.value}|${a.unit}`);
    this.emit({
      kind: "sample",
      metric: mapping.metric,
      at,
      ...(endAt > at ? { endAt } : {}),
      value,
      unit: mapping.unit,
      source: this.source,
      clientId: `${mapping.metric}:${at}:${key}`,
      meta: { device: cleanXmlValue(a.sourceName ?? "") },
    });
    if (mapping.metric === "sdnn" && r.bpm.length > 0) {
      // Apple lists each beat as an instantaneous rate; the beat's interval is 60 000 / bpm ms.
      this.emit({
        kind: "rr",
        startedAt: at,
        rrMs: r.bpm.map((bpm) => Math.round(60000 / bpm)),
        source: this.source,
        clientId: `rr:${at}:${key}`,
        meta: { device: cleanXmlValue(a.sourceName ?? ""), derivedFrom: "instantaneous_bpm" },
      });
    }
  }

  private emitSleep(a: XmlAttributes, offset: number): undefined {
    const at = parseHealthDate(a.startDate ?? "");
    const endAt = parseHealthDate(a.endDate ?? "");
    if (Number.isNaN(at) || Number.isNaN(endAt) || endAt < at) {
      return reject(this.report, { reason: "invalid_date", offset, detail: "sleep dates" });
    }
    const stage = SLEEP_STAGES[a.value ?? ""];
    if (!stage) return reject(this.report, { reason: "invalid_value", offset, detail: "sleep stage" });
    const key = hashId(`${SLEEP_TYPE}|${a.sourceName}|${a.startDate}|${a.endDate}|${a.value}`);
    this.emit({
      kind: "sample",
      metric: "sleep",
      at,
      endAt,
      value: (endAt - at) / 1000,
      unit: "s",
      source: this.source,
      clientId: `sleep:${at}:${key}`,
      meta: { device: cleanXmlValue(a.sourceName ?? ""), stage },
    });
  }

  private closeCorrelation(c: OpenCorrelation): undefined {
    const a = c.attrs;
    if (!a)
      return reject(this.report, {
        reason: "invalid_record",
        offset: c.offset,
        detail: "malformed attribute",
      });
    if (a.type !== BLOOD_PRESSURE_CORRELATION) {
      this.report.ignored++;
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(a.type ?? "") });
    }
    const at = parseHealthDate(a.startDate ?? "");
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: c.offset, detail: "startDate" });
    if (c.systolic === undefined || c.diastolic === undefined) {
      return reject(this.report, {
        reason: "missing_field",
        offset: c.offset,
        detail: "systolic or diastolic",
      });
    }
    this.emit({
      kind: "bp",
      at,
      systolicMmHg: c.systolic,
      diastolicMmHg: c.diastolic,
      source: this.source,
      clientId: `bp:${at}:${hashId(`${a.sourceName}|${a.startDate}|${c.systolic}|${c.diastolic}`)}`,
      meta: { device: cleanXmlValue(a.sourceName ?? "") },
    });
  }

  private addWorkoutStatistics(w: OpenWorkout, a: XmlAttributes): void {
    const sum = Number(a.sum);
    if (!Number.isFinite(sum)) return;
    const type = a.type ?? "";
    if (type.startsWith("HKQuantityTypeIdentifierDistance")) {
      const f = workoutFactor("length", a.unit);
      if (f !== undefined) w.distanceM ??= sum * f;
    } else if (type === "HKQuantityTypeIdentifierActiveEnergyBurned") {
      const f = workoutFactor("energy", a.unit);
      if (f !== undefined) w.energyJ ??= sum * f;
    }
  }

  private closeWorkout(w: OpenWorkout): undefined {
    const a = w.attrs;
    if (!a)
      return reject(this.report, {
        reason: "invalid_record",
        offset: w.offset,
        detail: "malformed attribute",
      });
    const startedAt = parseHealthDate(a.startDate ?? "");
    const endedAt = parseHealthDate(a.endDate ?? "");
    if (Number.isNaN(startedAt) || Number.isNaN(endedAt) || endedAt < startedAt) {
      return reject(this.report, { reason: "invalid_date", offset: w.offset, detail: "workout dates" });
    }
    const rec: ImportRecord = {
      kind: "workout",
      startedAt,
      endedAt,
      activity: activityName(cleanXmlValue(a.workoutActivityType ?? "")),
      source: this.source,
      clientId: `workout:${startedAt}:${hashId(`${a.workoutActivityType}|${a.sourceName}|${a.startDate}|${a.endDate}`)}`,
      meta: { device: cleanXmlValue(a.sourceName ?? "") },
    };
    const durationF = workoutFactor("time", a.durationUnit);
    const duration = Number(a.duration);
    if (durationF !== undefined && Number.isFinite(duration)) rec.durationS = duration * durationF;
    const distanceF = workoutFactor("length", a.totalDistanceUnit);
    const distance = Number(a.totalDistance);
    if (distanceF !== undefined && Number.isFinite(distance)) rec.distanceM = distance * distanceF;
    else if (w.distanceM !== undefined) rec.distanceM = w.distanceM;
    const energyF = workoutFactor("energy", a.totalEnergyBurnedUnit);
    const energy = Number(a.totalEnergyBurned);
    if (energyF !== undefined && Number.isFinite(energy)) rec.energyJ = energy * energyF;
    else if (w.energyJ !== undefined) rec.energyJ = w.energyJ;
    this.emit(rec);
  }
}

/**
 * Reads an Apple Health `export.xml` from chunks (of any size; never more than one unfinished tag is
 * kept between them) and yields:
 * - quantity Records of the types in `QUANTITY_TYPES` as samples in storage units (heart rate bpm,
 *   SDNN s, steps, distance m, energy J, weight kg, height m, body fat and SpO2 %, water L, carbs kg);
 * - the per-beat list of an SDNN Record (`InstantaneousBeatsPerMinute`) as an RR series
 *   (60 000 / bpm ms each), started at the Record's start;
 * - sleep analysis as `sleep` samples (duration s, stage in `meta.stage`);
 * - blood-pressure Correlations as `bp` records; Workouts with duration, distance and energy (from
 *   the Workout's totals or, in newer exports, its WorkoutStatistics).
 * Other types are counted in `report.ignored` and named once in the warnings. The DTD is never
 * interpreted (declared entities are reported and not expanded), control characters are dropped, a
 * malformed Record is rejected with its offset and the scan goes on; a truncated file ends with fatal
 * `unexpected_eof` after everything complete before the cut was yielded. `clientId`s hash the record's
 * own attributes, so re-importing the same export repeats them.
 */
export function importAppleHealthXml(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions = {},
): ImportSession {
  const report = createReport("apple_health_xml");
  return { report, records: run(input, options, report) };
}

async function* run(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions,
  report: ImportReport,
): AsyncGenerator<ImportRecord, void, undefined> {
  const mapper = new AppleHealthMapper(report, options.source ?? "apple_health");
  const scanner = new XmlScanner(WANTED, mapper);
  const decoder = new TextDecoder("utf-8");
  try {
    for await (const chunk of input) {
      if (options.signal?.aborted) {
        fail(report, { reason: "aborted", offset: report.bytesRead });
        break;
      }
      report.bytesRead += chunk.length;
      scanner.push(decoder.decode(chunk, { stream: true }));
      yield* drain(mapper.out);
      if (scanner.error) break;
    }
    if (!report.fatal) {
      scanner.push(decoder.decode());
      const problem = scanner.finish();
      yield* drain(mapper.out);
      if (report.bytesRead === 0) fail(report, { reason: "empty_file", offset: 0 });
      else if (problem) fail(report, problem);
    }
  } finally {
    report.done = true;
  }
}

function* drain(out: ImportRecord[]): Generator<ImportRecord> {
  for (let i = 0; i < out.length; i++) yield out[i] as ImportRecord;
  out.length = 0;
}
