// Apple Health elements → Tonus records: what is kept of a Record, Correlation or Workout while it is
// open, and how each becomes samples, an RR series, a blood-pressure reading or a workout. An element's
// attributes are read at its start tag (they lie in the scanner's bytes only then) into the open
// element's fields; its end tag makes the record, with the checks in the order they have always run.
import { reject, warn } from "../report.ts";
import type { ImportRecord, ImportReport, SampleRecord, WorkoutRecord } from "../types.ts";
import { AttrIndex, AttrValues, type Device, type TypeInfo } from "./apple-health-attrs.ts";
import { HealthDateReader, parseNumberAt } from "./byte-values.ts";
import {
  activityName,
  BLOOD_PRESSURE_CORRELATION,
  type QuantityMapping,
  unitFactor,
  workoutFactor,
} from "./types-map.ts";
import { cleanXmlValue, type XmlAttributes, type XmlHandler } from "./xml-scanner.ts";

/** The Record being read (one at a time: a Record opened inside another replaces it, as it always has). */
type OpenRecord = {
  isOpen: boolean;
  offset: number;
  malformed: boolean;
  typeRaw: string;
  type: TypeInfo;
  /** The value as `Number` reads it; false `hasValue` when it was absent, empty or not finite. */
  hasValue: boolean;
  raw: number;
  unitRaw: string;
  /** The sleep stage its value names. */
  stage: string | undefined;
  at: number;
  endAt: number;
  device: Device | null;
  bpm: number[] | null;
};
type OpenCorrelation = {
  isOpen: boolean;
  offset: number;
  malformed: boolean;
  typeRaw: string;
  at: number;
  device: Device | null;
  systolic?: number;
  diastolic?: number;
};
type OpenWorkout = {
  offset: number;
  malformed: boolean;
  typeRaw: string;
  startedAt: number;
  endedAt: number;
  device: Device | null;
  duration?: string;
  durationUnit?: string;
  totalDistance?: string;
  totalDistanceUnit?: string;
  totalEnergyBurned?: string;
  totalEnergyBurnedUnit?: string;
  distanceM?: number;
  energyJ?: number;
};

const WORKOUT_TOTALS = [
  "duration",
  "durationUnit",
  "totalDistance",
  "totalDistanceUnit",
  "totalEnergyBurned",
  "totalEnergyBurnedUnit",
] as const;

/** Receives the scanner's wanted elements and collects the records they make in `out`. */
export class AppleHealthMapper implements XmlHandler {
  out: ImportRecord[] = [];
  private readonly record: OpenRecord;
  private readonly correlation: OpenCorrelation;
  private workout: OpenWorkout | null = null;
  private readonly report: ImportReport;
  private readonly source: string;
  private readonly where = new AttrIndex();
  private readonly values: AttrValues;
  private readonly dates = new HealthDateReader();

  constructor(report: ImportReport, source: string) {
    this.report = report;
    this.source = source;
    this.values = new AttrValues(source);
    // Until a Record opens: the empty type's.
    const type = this.values.types.get(new Uint8Array(0), 0, 0).data;
    this.record = {
      isOpen: false,
      offset: 0,
      malformed: false,
      typeRaw: "",
      type,
      hasValue: false,
      raw: 0,
      unitRaw: "",
      stage: undefined,
      at: Number.NaN,
      endAt: Number.NaN,
      device: null,
      bpm: null,
    };
    this.correlation = {
      isOpen: false,
      offset: 0,
      malformed: false,
      typeRaw: "",
      at: Number.NaN,
      device: null,
    };
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
        this.openRecord(attrs, offset);
        return;
      case "Correlation":
        this.report.read++;
        this.openCorrelation(attrs, offset);
        return;
      case "Workout":
        this.report.read++;
        this.workout = this.openWorkout(attrs, offset);
        return;
      case "WorkoutStatistics":
        if (this.workout && !attrs.malformed) this.addWorkoutStatistics(this.workout, attrs);
        return;
      case "InstantaneousBeatsPerMinute": {
        const i = attrs.find("bpm");
        const bpm = i < 0 ? Number.NaN : parseNumberAt(attrs.bytes, attrs.valueStart(i), attrs.valueEnd(i));
        const r = this.record;
        if (!r.isOpen || !(bpm > 0 && Number.isFinite(bpm))) return;
        if (r.bpm === null) r.bpm = [bpm];
        else r.bpm.push(bpm);
        return;
      }
    }
  }

  close(name: string): void {
    if (name === "Record" && this.record.isOpen) {
      this.record.isOpen = false;
      this.closeRecord(this.record);
    } else if (name === "Correlation" && this.correlation.isOpen) {
      this.correlation.isOpen = false;
      this.closeCorrelation(this.correlation);
    } else if (name === "Workout" && this.workout) {
      const w = this.workout;
      this.workout = null;
      this.closeWorkout(w);
    }
  }

  /** True while a Record, Correlation or Workout is open (a checkpoint then would lose its start). */
  get isInsideElement(): boolean {
    return this.record.isOpen || this.correlation.isOpen || this.workout !== null;
  }

  private emit(rec: ImportRecord): void {
    this.report.emitted++;
    this.out.push(rec);
  }

  private date(a: XmlAttributes, i: number): number {
    return i < 0 ? Number.NaN : this.dates.parse(a.bytes, a.valueStart(i), a.valueEnd(i));
  }

  private openRecord(a: XmlAttributes, offset: number): void {
    const r = this.record;
    r.isOpen = true;
    r.offset = offset;
    r.bpm = null;
    r.malformed = a.malformed;
    if (a.malformed) return;
    const at = this.where.locate(a, "type");
    const type = AttrValues.raw(this.values.types, a, at.type);
    r.typeRaw = type.raw;
    r.type = type.data;
    if (!type.data.isSleep && !type.data.mapping) return;
    r.at = this.date(a, at.startDate);
    r.endAt = this.date(a, at.endDate);
    r.device = this.values.device(a, at.sourceName, at.device);
    if (type.data.isSleep) {
      r.stage = AttrValues.raw(this.values.stages, a, at.value).data;
      return;
    }
    const hasText = at.value >= 0 && a.valueEnd(at.value) > a.valueStart(at.value);
    r.raw = hasText ? parseNumberAt(a.bytes, a.valueStart(at.value), a.valueEnd(at.value)) : Number.NaN;
    r.hasValue = hasText && Number.isFinite(r.raw);
    r.unitRaw = AttrValues.raw(this.values.units, a, at.unit).raw;
  }

  /** The factor from `unit` to `mapping`'s storage unit, remembered on `type` for its next record. */
  private factor(type: TypeInfo, mapping: QuantityMapping, unit: string): number | undefined {
    if (type.lastUnit !== unit) {
      type.lastUnit = unit;
      type.lastFactor = unitFactor(mapping, unit);
    }
    return type.lastFactor;
  }

  private closeRecord(r: OpenRecord): undefined {
    if (r.malformed)
      return reject(this.report, {
        reason: "invalid_record",
        offset: r.offset,
        detail: "malformed attribute",
      });
    const type = r.type;
    if (type.isSleep) return this.emitSleep(r);
    const mapping = type.mapping;
    if (!mapping) {
      this.report.ignored++;
      if (type.warned) return;
      type.warned = true;
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(r.typeRaw) });
    }
    const raw = r.raw;
    if (!r.hasValue) {
      return reject(this.report, { reason: "invalid_value", offset: r.offset, detail: `${r.typeRaw} value` });
    }
    const at = r.at;
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: r.offset, detail: "startDate" });
    const factor = this.factor(type, mapping, r.unitRaw);
    if (factor === undefined) {
      return reject(this.report, {
        reason: "unknown_unit",
        offset: r.offset,
        detail: cleanXmlValue(r.unitRaw),
      });
    }
    const value = raw * factor;
    const correlation = this.correlation;
    if (correlation.isOpen && (mapping.metric === "bp_systolic" || mapping.metric === "bp_diastolic")) {
      if (mapping.metric === "bp_systolic") correlation.systolic = value;
      else correlation.diastolic = value;
      return;
    }
    const endAt = r.endAt;
    const device = r.device as Device;
    const span = endAt > at ? endAt - at : 0;
    const clientId = `${mapping.metric}:${at}:${span}:${raw}:${device.key}`;
    // Two literals rather than `endAt` added afterwards: the record is then one object, not an object
    // and a property store (the same keys in the same order either way).
    const rec: SampleRecord =
      span > 0
        ? {
            kind: "sample",
            metric: mapping.metric,
            at,
            value,
            unit: mapping.unit,
            source: device.sampleSource,
            clientId,
            meta: device.meta,
            endAt,
          }
        : {
            kind: "sample",
            metric: mapping.metric,
            at,
            value,
            unit: mapping.unit,
            source: device.sampleSource,
            clientId,
            meta: device.meta,
          };
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

  private emitSleep(r: OpenRecord): undefined {
    const { at, endAt, offset } = r;
    if (Number.isNaN(at) || Number.isNaN(endAt) || endAt < at) {
      return reject(this.report, { reason: "invalid_date", offset, detail: "sleep dates" });
    }
    const stage = r.stage;
    if (!stage) return reject(this.report, { reason: "invalid_value", offset, detail: "sleep stage" });
    const device = r.device as Device;
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

  private openCorrelation(a: XmlAttributes, offset: number): void {
    const c = this.correlation;
    c.isOpen = true;
    c.offset = offset;
    c.malformed = a.malformed;
    c.systolic = undefined;
    c.diastolic = undefined;
    if (a.malformed) return;
    const at = this.where.locate(a, "type");
    c.typeRaw = AttrValues.raw(this.values.types, a, at.type).raw;
    c.at = this.date(a, at.startDate);
    c.device = this.values.device(a, at.sourceName, -1);
  }

  private closeCorrelation(c: OpenCorrelation): undefined {
    if (c.malformed)
      return reject(this.report, {
        reason: "invalid_record",
        offset: c.offset,
        detail: "malformed attribute",
      });
    if (c.typeRaw !== BLOOD_PRESSURE_CORRELATION) {
      this.report.ignored++;
      return warn(this.report, { reason: "unsupported_type", detail: cleanXmlValue(c.typeRaw) });
    }
    const at = c.at;
    if (Number.isNaN(at))
      return reject(this.report, { reason: "invalid_date", offset: c.offset, detail: "startDate" });
    if (c.systolic === undefined || c.diastolic === undefined) {
      return reject(this.report, {
        reason: "missing_field",
        offset: c.offset,
        detail: "systolic or diastolic",
      });
    }
    const device = c.device as Device;
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

  private openWorkout(a: XmlAttributes, offset: number): OpenWorkout {
    const none = { offset, typeRaw: "", startedAt: Number.NaN, endedAt: Number.NaN, device: null };
    if (a.malformed) return { ...none, malformed: true };
    const at = this.where.locate(a, "workoutActivityType");
    const w: OpenWorkout = {
      offset,
      malformed: false,
      typeRaw: at.type < 0 ? "" : a.valueAt(at.type),
      startedAt: this.date(a, at.startDate),
      endedAt: this.date(a, at.endDate),
      device: this.values.device(a, at.sourceName, -1),
    };
    for (const key of WORKOUT_TOTALS) {
      const v = a.get(key);
      if (v !== undefined) w[key] = v;
    }
    return w;
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
    if (w.malformed)
      return reject(this.report, {
        reason: "invalid_record",
        offset: w.offset,
        detail: "malformed attribute",
      });
    const { startedAt, endedAt } = w;
    if (Number.isNaN(startedAt) || Number.isNaN(endedAt) || endedAt < startedAt) {
      return reject(this.report, { reason: "invalid_date", offset: w.offset, detail: "workout dates" });
    }
    const activity = activityName(cleanXmlValue(w.typeRaw));
    const device = w.device as Device;
    const rec: WorkoutRecord = {
      kind: "workout",
      startedAt,
      endedAt,
      activity,
      source: this.source,
      clientId: `workout:${startedAt}:${endedAt - startedAt}:${activity}:${device.key}`,
      meta: device.meta,
    };
    const durationF = workoutFactor("time", w.durationUnit);
    const duration = Number(w.duration);
    if (durationF !== undefined && Number.isFinite(duration)) rec.durationS = duration * durationF;
    const distanceF = workoutFactor("length", w.totalDistanceUnit);
    const distance = Number(w.totalDistance);
    if (distanceF !== undefined && Number.isFinite(distance)) rec.distanceM = distance * distanceF;
    else if (w.distanceM !== undefined) rec.distanceM = w.distanceM;
    const energyF = workoutFactor("energy", w.totalEnergyBurnedUnit);
    const energy = Number(w.totalEnergyBurned);
    if (energyF !== undefined && Number.isFinite(energy)) rec.energyJ = energy * energyF;
    else if (w.energyJ !== undefined) rec.energyJ = w.energyJ;
    this.emit(rec);
  }
}
