// Fitbit's JSON export files (Google Takeout "Global Export Data"): each a top-level array of small
// objects. The array is split element by element while streaming, so only one element is parsed at a
// time; dates are written `01/31/23 08:00:05` (month first, two-digit year).
import { ImportInputError } from "../errors.ts";
import { fail, reject } from "../report.ts";
import type { ImportOptions, ImportRecord, ImportReport, SampleRecord, Unit } from "../types.ts";
import { parseDateTime } from "./dates.ts";
import { decodeText, type TextOptions } from "./text.ts";

/** Longest single array element kept while waiting for its end. */
const MAX_ELEMENT_CHARS = 1 << 20;
const BATCH = 1000;

/** Yields the text of each element of a top-level JSON array, with its 0-based index. */
export async function* splitJsonArray(
  text: AsyncIterable<string>,
): AsyncGenerator<{ index: number; json: string }> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let element = "";
  let index = 0;
  for await (const chunk of text) {
    let from = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true;
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) inString = true;
      else if (c === 91 || c === 123) {
        if (!started) {
          if (c !== 91) throw new ImportInputError({ reason: "unknown_format", detail: "not a JSON array" });
          started = true;
          from = i + 1;
          continue;
        }
        depth++;
      } else if (c === 93 || c === 125) {
        if (depth === 0 && c === 93) {
          element += chunk.slice(from, i);
          if (element.trim()) yield { index: index++, json: element };
          return;
        }
        depth--;
      } else if (c === 44 && depth === 0 && started) {
        element += chunk.slice(from, i);
        yield { index: index++, json: element };
        element = "";
        from = i + 1;
      } else if (!started && c > 32) {
        throw new ImportInputError({ reason: "unknown_format", detail: "not a JSON array" });
      }
    }
    if (started) element += chunk.slice(from);
    if (element.length > MAX_ELEMENT_CHARS)
      throw new ImportInputError({ reason: "malformed_line", detail: "element too long" });
  }
  throw new ImportInputError({ reason: "unexpected_eof", detail: "JSON array not closed" });
}

type Fields = Record<string, unknown>;
const isObject = (v: unknown): v is Fields => typeof v === "object" && v !== null && !Array.isArray(v);

/** Which Fitbit file this is, from its name or, failing that, its first element's shape. */
function kindOf(
  fileName: string | undefined,
  first: Fields,
): "heart_rate" | "steps" | "resting_heart_rate" | "weight" | undefined {
  const name = (fileName ?? "").toLowerCase();
  if (name.startsWith("steps")) return "steps";
  if (name.startsWith("resting_heart_rate")) return "resting_heart_rate";
  if (name.startsWith("heart_rate")) return "heart_rate";
  if (name.startsWith("weight")) return "weight";
  if (isObject(first.value) && "bpm" in first.value) return "heart_rate";
  if (isObject(first.value) && "error" in first.value) return "resting_heart_rate";
  if ("weight" in first) return "weight";
  return undefined;
}

/** The reading loop for Fitbit JSON files (see `importHealthExport`). */
export async function* runFitbitJson(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions &
    TextOptions & { fileName?: string; fitbitWeightUnit?: "kg" | "lb"; timezoneOffsetMin?: number },
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  const source = options.source ?? "fitbit";
  const offset = options.timezoneOffsetMin ?? 0;
  let kind: ReturnType<typeof kindOf>;
  let batch: ImportRecord[] = [];
  const progress = { bytes: 0 };
  async function* counted(): AsyncGenerator<Uint8Array> {
    for await (const chunk of input) {
      report.bytesRead += chunk.length;
      yield chunk;
    }
  }
  try {
    try {
      for await (const { index, json } of splitJsonArray(decodeText(counted(), options, progress))) {
        report.read++;
        let item: unknown;
        try {
          item = JSON.parse(json);
        } catch {
          reject(report, { reason: "malformed_line", detail: `element ${index}` });
          continue;
        }
        if (!isObject(item)) {
          reject(report, { reason: "invalid_record", detail: `element ${index}` });
          continue;
        }
        kind ??= kindOf(options.fileName, item);
        if (!kind) {
          fail(report, { reason: "unsupported_type", detail: options.fileName ?? "unknown Fitbit file" });
          break;
        }
        const rec = toSample(kind, item, { source, offset, weightUnit: options.fitbitWeightUnit ?? "kg" });
        if (typeof rec === "string") reject(report, { reason: rec, detail: `element ${index}` });
        else batch.push(rec);
        if (batch.length >= BATCH) {
          report.emitted += batch.length;
          yield batch;
          batch = [];
        }
      }
    } catch (e) {
      if (!(e instanceof ImportInputError)) throw e;
      fail(report, e.rejection);
    }
    if (batch.length > 0) {
      report.emitted += batch.length;
      yield batch;
    }
    if (report.bytesRead === 0) fail(report, { reason: "empty_file" });
  } finally {
    report.done = true;
  }
}

function toSample(
  kind: NonNullable<ReturnType<typeof kindOf>>,
  item: Fields,
  ctx: { source: string; offset: number; weightUnit: "kg" | "lb" },
): SampleRecord | "invalid_date" | "invalid_value" {
  const when = kind === "weight" ? `${item.date} ${item.time ?? "00:00:00"}` : String(item.dateTime);
  const at = parseDateTime(when, "mdy", ctx.offset);
  if (Number.isNaN(at)) return "invalid_date";
  const v = item.value;
  let value: number;
  let unit: Unit = "bpm";
  if (kind === "heart_rate") value = Number(isObject(v) ? v.bpm : Number.NaN);
  else if (kind === "resting_heart_rate") value = Number(isObject(v) ? v.value : Number.NaN);
  else if (kind === "steps") {
    value = Number(v);
    unit = "count";
  } else {
    value = Number(item.weight) * (ctx.weightUnit === "lb" ? 0.45359237 : 1);
    unit = "kg";
  }
  // Fitbit writes 0 for "no resting heart rate that day".
  if (!Number.isFinite(value) || (kind === "resting_heart_rate" && value <= 0)) return "invalid_value";
  return { kind: "sample", metric: kind, at, value, unit, source: ctx.source, clientId: `${kind}:${at}` };
}
