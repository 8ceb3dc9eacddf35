// Which importer a file needs, from its first bytes (and its name for the few formats that only the
// name tells apart). The server reads the first few KB of an upload, asks, then opens the right session.
import { type CsvExportFormat, detectExportFormat } from "./csv/exports.ts";
import { detectEncoding } from "./csv/text.ts";

/** What {@link detectFileKind} found. */
export type FileKind =
  | { kind: "fit" }
  | { kind: "zip" }
  | { kind: "apple_health_xml" }
  | { kind: "health_export"; format: CsvExportFormat }
  | { kind: "rr_text" }
  | { kind: "csv" }
  | { kind: "unknown" };

/**
 * Classifies a file by its first bytes (4 KB are plenty): FIT by its header signature, zip by its
 * local-header magic, Apple Health XML by its root, known CSV/JSON exports by their headers, RR text
 * files by a column of numbers; any other delimited text is `csv` (the generic importer with a mapping).
 */
export function detectFileKind(head: Uint8Array, fileName = ""): FileKind {
  if (
    head.length >= 12 &&
    head[0] !== undefined &&
    head[0] >= 12 &&
    String.fromCharCode(...head.subarray(8, 12)) === ".FIT"
  ) {
    return { kind: "fit" };
  }
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return { kind: "zip" };
  const text = new TextDecoder("utf-8").decode(head).replace(/^\uFEFF/, "");
  const start = text.trimStart();
  if (
    start.startsWith("<?xml") ||
    start.startsWith("<!DOCTYPE HealthData") ||
    start.startsWith("<HealthData")
  ) {
    return /<HealthData|<!DOCTYPE HealthData/.test(text) ? { kind: "apple_health_xml" } : { kind: "unknown" };
  }
  const known = detectExportFormat(text);
  if (known && (known.format !== "fitbit_json" || /\.json$/i.test(fileName) || start.startsWith("[{"))) {
    return { kind: "health_export", format: known.format };
  }
  if (/^(\s*[A-Za-z_ ()]*\r?\n)?(\s*\d+([.,]\d+)?\s*\r?\n){3}/.test(start)) return { kind: "rr_text" };
  if (/^[^\n]*[,;\t][^\n]*\r?\n/.test(start) && looksLikeText(head)) return { kind: "csv" };
  return { kind: "unknown" };
}

/** More than one control character in this many is a binary file, not text. */
const CONTROLS_PER_TEXT = 50;

/**
 * True when `head` reads as text in some encoding: UTF-16 judged by its characters, anything else by its
 * bytes, with no NUL and hardly any other control character. Bytes ≥ 0x80 count as text even when they
 * are not UTF-8: a Windows-1251 file from a Russian Excel is still a CSV, which the preview then refuses
 * with `not_utf8` (a message that tells the person what to do) rather than as an unknown format.
 */
function looksLikeText(head: Uint8Array): boolean {
  const { encoding, skip } = detectEncoding(head);
  const codes = encoding.startsWith("utf-16")
    ? Array.from(new TextDecoder(encoding).decode(head.subarray(skip)), (c) => c.charCodeAt(0))
    : head;
  let controls = 0;
  for (const c of codes) {
    if (c === 0) return false;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) controls++;
  }
  return controls * CONTROLS_PER_TEXT <= codes.length;
}
