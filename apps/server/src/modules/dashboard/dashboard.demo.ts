import fs from "node:fs";
import path from "node:path";
import { type BaselineEntry, computeBaseline } from "@tonus/hrv";
import {
  type BpInputReading,
  computeMeasurement,
  dashboardMetricsOf,
} from "../measurements/measurements.compute.ts";
import { addDays, type DailyRow, daysBetween } from "./dashboard.buckets.ts";

/**
 * The demo dashboard (spec §6): real data of one volunteer of the Welltory COVID-19 study (CC0, see
 * demo/README.md) — months of HRV measurements with their tags, blood pressure, sleep, steps, distance
 * and calories — shifted so that its last day is today. Measurements are analysed by the same engine
 * as everyone's, so the demo shows what Tonus itself computes.
 */

export const DEMO_SOURCE = "demo";
const DIR = path.join(import.meta.dirname, "demo");
const BP_WINDOW_MS = 30 * 60_000;

export type DemoMeasurement = {
  day: string;
  atMs: number;
  tags: string[];
  metrics: Record<string, number | null>;
};
export type DemoData = { lastDay: string; daily: DailyRow[]; measurements: DemoMeasurement[] };

/** Splits one CSV line (commas; double quotes around fields that hold commas). */
function fields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      const end = line.indexOf('"', i + 1);
      out.push(line.slice(i + 1, end));
      i = end + 2;
    } else {
      const end = line.indexOf(",", i);
      const stop = end < 0 ? line.length : end;
      out.push(line.slice(i, stop));
      i = stop + 1;
    }
  }
  return out;
}

function readCsv(name: string): Record<string, string>[] {
  const [head, ...lines] = fs.readFileSync(path.join(DIR, name), "utf8").trim().split(/\r?\n/);
  const columns = fields(head as string);
  return lines.map((line) => {
    const values = fields(line);
    return Object.fromEntries(columns.map((c, i) => [c, values[i] ?? ""]));
  });
}

const num = (text: string | undefined) => (text === undefined || text.trim() === "" ? null : Number(text));
/** The study's local wall-clock time `2020-04-21 21:23:08` (sometimes two spaces) as if it were UTC. */
const wallMs = (text: string) => Date.parse(`${text.replace(/\s+/, "T")}Z`);

/** Accumulates samples into (metric, day) summary rows. */
class Days {
  private readonly rows = new Map<string, DailyRow>();

  add(metric: string, day: string, atMs: number, value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    const key = `${metric}\u0000${day}`;
    const row = this.rows.get(key);
    if (!row) {
      this.rows.set(key, {
        metric,
        day,
        source: DEMO_SOURCE,
        n: 1,
        sum: value,
        min: value,
        max: value,
        lastAtMs: atMs,
        lastValue: value,
      });
      return;
    }
    row.n += 1;
    row.sum += value;
    row.min = Math.min(row.min, value);
    row.max = Math.max(row.max, value);
    if (atMs >= row.lastAtMs) {
      row.lastAtMs = atMs;
      row.lastValue = value;
    }
  }

  list(): DailyRow[] {
    return [...this.rows.values()];
  }
}

function loadMeasurements(days: Days, bp: { atMs: number; reading: BpInputReading }[]): DemoMeasurement[] {
  const rows = readCsv("hrv_measurements.csv")
    .map((r) => ({ atMs: wallMs(r.measurement_datetime as string), r }))
    .sort((a, b) => a.atMs - b.atMs);
  const history: BaselineEntry[] = [];
  const out: DemoMeasurement[] = [];
  for (const { atMs, r } of rows) {
    const rrMs = (r.rr_data ?? "").split(",").map(Number).filter(Number.isFinite);
    const near = bp
      .filter((b) => Math.abs(b.atMs - atMs) <= BP_WINDOW_MS)
      .sort((a, b) => Math.abs(a.atMs - atMs) - Math.abs(b.atMs - atMs))[0];
    const result = computeMeasurement({
      rrMs,
      startedAt: new Date(atMs),
      baseline: computeBaseline(history, atMs),
      reading: near?.reading ?? null,
      // The participant's profile: height 164 cm, weight 58.5 kg; the study gives an age range only.
      profile: { dateOfBirth: null, heightCm: 164, weightKg: 58.5 },
    });
    if (!result) continue;
    const metrics = dashboardMetricsOf(result);
    const day = new Date(atMs).toISOString().slice(0, 10);
    for (const [metric, value] of Object.entries(metrics)) days.add(metric, day, atMs, value);
    const tags = (r.tags ?? "")
      .split(";")
      .map((t) => t.trim())
      .filter(Boolean);
    out.push({ day, atMs, tags, metrics });
    if (result.values.rmssd !== null)
      history.push({
        timeMs: atMs,
        rmssdMs: result.values.rmssd,
        ...(result.values.psi !== null ? { stressIndex: result.values.psi } : {}),
        ...(result.values.heart_rate !== null ? { hrBpm: result.values.heart_rate } : {}),
      });
  }
  return out;
}

/** Reads and analyses the bundled files (about 100 ms); the result is cached for the process. */
export function loadDemoData(): DemoData {
  const days = new Days();
  const bp = readCsv("blood_pressure.csv").map((r, i) => {
    const atMs = wallMs(r.measurement_datetime as string);
    const systolic = Number(r.systolic);
    const diastolic = Number(r.diastolic);
    const day = new Date(atMs).toISOString().slice(0, 10);
    days.add("bp_systolic", day, atMs, systolic);
    days.add("bp_diastolic", day, atMs, diastolic);
    const reading: BpInputReading = {
      id: `demo-${i}`,
      systolic,
      diastolic,
      pulse: null,
      measuredAt: new Date(atMs),
    };
    return { atMs, reading };
  });
  const measurements = loadMeasurements(days, bp);
  for (const r of readCsv("sleep.csv")) {
    const day = r.day as string;
    days.add("sleep", day, wallMs(r.sleep_end as string), num(r.sleep_duration));
  }
  const KCAL_J = 4184;
  for (const r of readCsv("wearables.csv")) {
    const day = r.day as string;
    const at = Date.parse(`${day}T20:00:00Z`);
    days.add("resting_heart_rate", day, at, num(r.resting_pulse));
    days.add("spo2", day, at, num(r.average_spo2_value));
    days.add("steps", day, at, num(r.steps_count));
    days.add("distance", day, at, num(r.distance));
    const active = num(r.active_calories_burned);
    const basal = num(r.basal_calories_burned);
    days.add("active_energy", day, at, active === null ? null : active * KCAL_J);
    days.add("basal_energy", day, at, basal === null ? null : basal * KCAL_J);
  }
  const daily = days.list();
  const lastDay = daily.reduce((last, r) => (r.day > last ? r.day : last), "0000-00-00");
  return { lastDay, daily, measurements };
}

let cached: DemoData | null = null;
let shiftedFor: { today: string; data: DemoData } | null = null;

/** The demo data with its last day moved to `today` (a local day). */
export function demoDataFor(today: string): DemoData {
  if (shiftedFor?.today === today) return shiftedFor.data;
  cached ??= loadDemoData();
  const base = cached;
  const offset = daysBetween(base.lastDay, today);
  const shift = (day: string) => addDays(day, offset);
  const data: DemoData = {
    lastDay: today,
    daily: base.daily.map((r) => ({ ...r, day: shift(r.day), lastAtMs: r.lastAtMs + offset * 86_400_000 })),
    measurements: base.measurements.map((m) => ({
      ...m,
      day: shift(m.day),
      atMs: m.atMs + offset * 86_400_000,
    })),
  };
  shiftedFor = { today, data };
  return data;
}
