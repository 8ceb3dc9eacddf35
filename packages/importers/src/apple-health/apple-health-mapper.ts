// Apple Health elements → Tonus records: what is kept of a Record, Correlation or Workout while it is
// open, and how each becomes samples, an RR series, a blood-pressure reading or a workout.
import { reject, warn } from "../report.ts";
import type { ImportRecord, ImportReport, SampleRecord, WorkoutRecord } from "../types.ts";
import {
  activityName,
  BLOOD_PRESSURE_CORRELATION,
  convertQuantity,
  lookUp,
  parseHealthDate,
  QUANTITY_TYPES,
  SLEEP_STAGES,
  SLEEP_TYPE,
  workoutFactor,
} from "./types-map.ts";
import { cleanXmlValue, type XmlAttributes, type XmlHandler } from "./xml-scanner.ts";

type RecordAttrs = {
  type: string;
  unit: string;
  value: string | undefined;
  sourceName: string;
  /** The `device` attribute (`<<HKDevice: …>, name:Apple Watch, …, model:Watch, …>`), when present. */
  device: string;
  startDate: string;
  endDate: string;
};
/**
 * Where a record came from: its source's name, a short key of it, and — for Apple's own devices — the
 * sub-source its samples are stored under (`watch`, `phone`), so the dashboard can prefer the Watch
 * where both counted the same steps.
 */
type Device = {
  name: string;
  key: string;
  meta: Readonly<Record<string, string>>;
  kind: "watch" | "phone" | null;
  /** Where its samples are stored: `apple_health`, or its kind's sub-source. */
  sampleSource: string;
};

/**
 * An Apple device's kind, from the record's `device` attribute (its `model:` or `name:`), else from the
 * source's name ("Anna's Apple Watch", "Anna's iPhone"); null for other apps and devices.
 */
export function appleDeviceKind(sourceName: string, device: string): "watch" | "phone" | null {
  const model = /\bmodel:([^,>]*)/.exec(device)?.[1] ?? /\bname:([^,>]*)/.exec(device)?.[1];
  const text = model ?? sourceName;
  if (/\bwatch\b/i.test(text)) return "watch";
  if (/\biphone\b/i.test(text)) return "phone";
  return null;
}
type OpenRecord = { attrs: RecordAttrs | null; offset: number; bpm: number[] | null };
type OpenCorrelation = {
  attrs: RecordAttrs | null;
  offset: number;
  systolic?: number;
  diastolic?: number;
};
type WorkoutAttrs = RecordAttrs & {
  duration?: string;
  durationUnit?: string;
  totalDistance?: string;
  totalDistanceUnit?: string;
  totalEnergyBurned?: string;
  totalEnergyBurnedUnit?: string;
};
type OpenWorkout = { attrs: WorkoutAttrs | null; offset: number; distanceM?: number; energyJ?: number };

function recordAttrs(a: XmlAttributes, typeName = "type"): RecordAttrs | null {
  if (a.malformed) return null;
  const r: RecordAttrs = {
    type: "",
    unit: "",
    value: undefined,
    sourceName: "",
    device: "",
    startDate: "",
    endDate: "",
  };
  // One pass over the attributes, told apart by name length first (a Record has about nine).
  for (let i = 0; i < a.count; i++) {
    switch (a.nameLength(i)) {
      case 4:
        if (a.nameIs(i, "unit")) r.unit = a.valueAt(i);
        else if (a.nameIs(i, typeName)) r.type = a.valueAt(i);
        break;
      case 5:
        if (a.nameIs(i, "value")) r.value = a.valueAt(i);
        break;
      case 6:
        if (a.nameIs(i, "device")) r.device = a.valueAt(i);
        break;
      case 7:
        if (a.nameIs(i, "endDate")) r.endDate = a.valueAt(i);
        break;
      case 9:
        if (a.nameIs(i, "startDate")) r.startDate = a.valueAt(i);
        break;
      case 10:
        if (a.nameIs(i, "sourceName")) r.sourceName = a.valueAt(i);
        break;
      default:
        if (a.nameIs(i, typeName)) r.type = a.valueAt(i);
    }
  }
  return r;
}

function workoutAttrs(a: XmlAttributes): WorkoutAttrs | null {
  const base = recordAttrs(a, "workoutActivityType");
  if (!base) return null;
  const w: WorkoutAttrs = base;
  for (const key of [
    "duration",
    "durationUnit",
    "totalDistance",
    "totalDistanceUnit",
    "totalEnergyBurned",
    "totalEnergyBurnedUnit",
  ] as const) {
    const v = a.get(key);
    if (v !== undefined) w[key] = v;
  }
  return w;
}

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

/** Receives the scanner's wanted elements and collects the records they make in `out`. */
export class AppleHealthMapper implements XmlHandler {
  out: ImportRecord[] = [];
  private record: OpenRecord | null = null;
  private correlation: OpenCorrelation | null = null;
  private workout: OpenWorkout | null = null;
  private readonly report: ImportReport;
  private readonly source: string;
  // Exports repeat the same device and dates record after record: remember the last ones.
  private lastDeviceRaw = "";
  private lastDeviceAttr = "";
  private lastDevice: Device;
  private readonly dates: [string, number][] = [
    ["", Number.NaN],
    ["", Number.NaN],
  ];
  private nextDate = 0;

  constructor(report: ImportReport, source: string) {
    this.report = report;
    this.source = source;
    this.lastDevice = { name: "", key: hashId(""), meta: { device: "" }, kind: null, sampleSource: source };
  }

  doctype(info: { entities: number; external: boolean }): void {
    warn(this.report, {
      reason: "xml_entity_declared",
      detail: `DOCTYPE ignored (${info.entities} entities${info.external ? ", external id" : ""}); nothing expanded`,
    });
  }

  open(name: string, attrs: XmlAttributes, _selfClosing: boolean, offset: number): void {
    switch (name) {
      case "Record":
        this.report.read++;
        this.record = { attrs: recordAttrs(attrs), offset, bpm: null };
        return;
      case "Correlation":
        this.report.read++;
        this.correlation = { attrs: recordAttrs(attrs), offset };
        return;
      case "Workout":
        this.report.read++;
        this.workout = { attrs: workoutAttrs(attrs), offset };
        return;
      case "WorkoutStatistics":
        if (this.workout && !attrs.malformed) this.addWorkoutStatistics(this.workout, attrs);
        return;
      case "InstantaneousBeatsPerMinute": {
        const bpm = Number(attrs.get("bpm"));
        if (!this.record || !(bpm > 0 && Number.isFinite(bpm))) return;
        if (this.record.bpm === null) this.record.bpm = [bpm];
        else this.record.bpm.push(bpm);
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

  /** True while a Record, Correlation or Workout is open (a checkpoint then would lose its start). */
  get isInsideElement(): boolean {
    return this.record !== null || this.correlation !== null || this.workout !== null;
  }

  private emit(rec: ImportRecord): void {
    this.report.emitted++;
    this.out.push(rec);
  }

  private date(s: string): number {
    const [a, b] = this.dates as [[string, number], [string, number]];
    if (a[0] === s) return a[1];
    if (b[0] === s) return b[1];
    const v = parseHealthDate(s);
    const slot = this.dates[this.nextDate] as [string, number];
    slot[0] = s;
    slot[1] = v;
    this.nextDate ^= 1;
    return v;
  }

  private device(raw: string, deviceAttr = ""): Device {
    if (raw !== this.lastDeviceRaw || deviceAttr !== this.lastDeviceAttr) {
      const name = cleanXmlValue(raw);
      this.lastDeviceRaw = raw;
      this.lastDeviceAttr = deviceAttr;
      // One meta object per device, shared by its records (read-only): fewer allocations per record.
      const kind = appleDeviceKind(name, cleanXmlValue(deviceAttr));
      this.lastDevice = {
        name,
        key: hashId(name),
        meta: Object.freeze({ device: name }),
        kind,
        // Samples of the Watch and of the iPhone go to sub-sources (`apple_health.watch`,
        // `apple_health.phone`): both count steps, distance and energy, often over the same minutes,
        // and the dashboard then takes one of them per metric and day — the Watch, as Apple Health
        // itself prefers it — instead of their sum.
        sampleSource: kind ? `${this.source}.${kind}` : this.source,
      };
    }
    return this.lastDevice;
  }

  private closeRecord(r: OpenRecord): undefined {
    const a = r.attrs;
    if (!a)
      return reject(this.report, {
        reason: "invalid_record",
        offset: r.offset,
        detail: "malformed attribute",
      });
    const type = a.type;
    if (type === SLEEP_TYPE) return this.emitSleep(a, r.offset);
    const mapping = lookUp(QUANTITY_TYPES, type);
    if (!mapping) {
      this.report.ignored++;
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(type) });
    }
    const raw = Number(a.value);
    if (a.value === undefined || a.value === "" || !Number.isFinite(raw)) {
      return reject(this.report, { reason: "invalid_value", offset: r.offset, detail: `${type} value` });
    }
    const at = this.date(a.startDate);
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: r.offset, detail: "startDate" });
    const value = convertQuantity(mapping, raw, a.unit);
    if (value === undefined) {
      return reject(this.report, { reason: "unknown_unit", offset: r.offset, detail: cleanXmlValue(a.unit) });
    }
    if (
      this.correlation !== null &&
      (mapping.metric === "bp_systolic" || mapping.metric === "bp_diastolic")
    ) {
      if (mapping.metric === "bp_systolic") this.correlation.systolic = value;
      else this.correlation.diastolic = value;
      return;
    }
    const endAt = this.date(a.endDate);
    const device = this.device(a.sourceName, a.device);
    const span = endAt > at ? endAt - at : 0;
    const rec: SampleRecord = {
      kind: "sample",
      metric: mapping.metric,
      at,
      value,
      unit: mapping.unit,
      source: device.sampleSource,
      clientId: `${mapping.metric}:${at}:${span}:${raw}:${device.key}`,
      meta: device.meta,
    };
    if (span > 0) rec.endAt = endAt;
    this.emit(rec);
    if (mapping.metric === "sdnn" && r.bpm !== null) {
      // Apple lists each beat as an instantaneous rate; the beat's interval is 60 000 / bpm ms.
      this.emit({
        kind: "rr",
        startedAt: at,
        rrMs: r.bpm.map((bpm) => Math.round(60000 / bpm)),
        source: this.source,
        clientId: `rr:${at}:${span}:${device.key}`,
        meta: { device: device.name, derivedFrom: "instantaneous_bpm" },
      });
    }
  }

  private emitSleep(a: RecordAttrs, offset: number): undefined {
    const at = this.date(a.startDate);
    const endAt = this.date(a.endDate);
    if (Number.isNaN(at) || Number.isNaN(endAt) || endAt < at) {
      return reject(this.report, { reason: "invalid_date", offset, detail: "sleep dates" });
    }
    const stage = lookUp(SLEEP_STAGES, a.value ?? "");
    if (!stage) return reject(this.report, { reason: "invalid_value", offset, detail: "sleep stage" });
    const device = this.device(a.sourceName, a.device);
    this.emit({
      kind: "sample",
      metric: "sleep",
      at,
      endAt,
      value: (endAt - at) / 1000,
      unit: "s",
      source: device.sampleSource,
      clientId: `sleep:${at}:${endAt - at}:${stage}:${device.key}`,
      meta: { device: device.name, stage },
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
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(a.type) });
    }
    const at = this.date(a.startDate);
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: c.offset, detail: "startDate" });
    if (c.systolic === undefined || c.diastolic === undefined) {
      return reject(this.report, {
        reason: "missing_field",
        offset: c.offset,
        detail: "systolic or diastolic",
      });
    }
    const device = this.device(a.sourceName);
    this.emit({
      kind: "bp",
      at,
      systolicMmHg: c.systolic,
      diastolicMmHg: c.diastolic,
      source: this.source,
      clientId: `bp:${at}:${c.systolic}:${c.diastolic}:${device.key}`,
      meta: device.meta,
    });
  }

  private addWorkoutStatistics(w: OpenWorkout, a: XmlAttributes): void {
    const sum = Number(a.get("sum"));
    if (!Number.isFinite(sum)) return;
    const type = a.get("type") ?? "";
    if (type.startsWith("HKQuantityTypeIdentifierDistance")) {
      const f = workoutFactor("length", a.get("unit"));
      if (f !== undefined) w.distanceM ??= sum * f;
    } else if (type === "HKQuantityTypeIdentifierActiveEnergyBurned") {
      const f = workoutFactor("energy", a.get("unit"));
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
    const startedAt = this.date(a.startDate);
    const endedAt = this.date(a.endDate);
    if (Number.isNaN(startedAt) || Number.isNaN(endedAt) || endedAt < startedAt) {
      return reject(this.report, { reason: "invalid_date", offset: w.offset, detail: "workout dates" });
    }
    const activity = activityName(cleanXmlValue(a.type));
    const device = this.device(a.sourceName);
    const rec: WorkoutRecord = {
      kind: "workout",
      startedAt,
      endedAt,
      activity,
      source: this.source,
      clientId: `workout:${startedAt}:${endedAt - startedAt}:${activity}:${device.key}`,
      meta: device.meta,
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
