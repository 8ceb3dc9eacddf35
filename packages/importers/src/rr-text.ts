// RR text files (Elite HRV, Polar, HRV Logger, Kubios, Welltory lists, any table with an RR column),
// read by packages/hrv's `parseRrFile`. They are small (a day of beats is well under a megabyte), so
// the text is collected up to a cap and parsed at once.
import { parseRrFile, type RrFileIssue } from "@tonus/hrv";
import { hashId } from "./apple-health/apple-health-attrs.ts";
import { decodeText, type TextOptions } from "./csv/text.ts";
import { ImportInputError } from "./errors.ts";
import { createReport, createSession, fail, reject } from "./report.ts";
import type { ImportOptions, ImportRecord, ImportReport, ImportSession, RejectReason } from "./types.ts";

/** Largest RR text file read (about a week of beats). */
export const MAX_RR_TEXT_BYTES = 16 * 1024 * 1024;

const FATAL: Partial<Record<RrFileIssue["code"], RejectReason>> = {
  empty_file: "empty_file",
  unrecognised_format: "unknown_format",
  missing_rr_column: "missing_field",
  ambiguous_unit: "unknown_unit",
};

/**
 * Imports one RR text file as one RR series starting at `startedAt` (ms UTC; such files carry no
 * date, so the caller gives one: the recording's time or the file's). Values packages/hrv skips are
 * rejected with their line; an unreadable layout ends with a fatal reason. `clientId` hashes the
 * intervals, so the same file imported twice gives the same id.
 */
export function importRrText(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions & TextOptions & { startedAt: number },
): ImportSession {
  const report = createReport("rr_text");
  return createSession(report, run(input, options, report));
}

async function* run(
  input: AsyncIterable<Uint8Array>,
  options: ImportOptions & TextOptions & { startedAt: number },
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  try {
    let text = "";
    try {
      const progress = { bytes: 0 };
      for await (const chunk of decodeText(input, options, progress)) {
        report.bytesRead = progress.bytes;
        text += chunk;
        if (progress.bytes > MAX_RR_TEXT_BYTES)
          throw new ImportInputError({ reason: "too_large", offset: progress.bytes });
      }
      report.bytesRead = progress.bytes;
    } catch (e) {
      if (!(e instanceof ImportInputError)) throw e;
      fail(report, e.rejection);
      return;
    }
    const parsed = parseRrFile(text);
    report.read = parsed.rrMs.length + parsed.issues.filter((i) => i.line !== undefined).length;
    for (const issue of parsed.issues) {
      const fatal = FATAL[issue.code];
      if (fatal) fail(report, { reason: fatal, ...(issue.line ? { line: issue.line } : {}) });
      else if (issue.code === "invalid_value" || issue.code === "out_of_range") {
        reject(report, {
          reason: issue.code,
          ...(issue.line ? { line: issue.line } : {}),
          detail: issue.text ?? "",
        });
      }
    }
    if (parsed.rrMs.length === 0 || !Number.isFinite(options.startedAt)) {
      if (!Number.isFinite(options.startedAt)) fail(report, { reason: "invalid_date", detail: "startedAt" });
      return;
    }
    report.emitted = 1;
    yield [
      {
        kind: "rr",
        startedAt: options.startedAt,
        rrMs: parsed.rrMs,
        source: options.source ?? "rr_file",
        clientId: `rr:${options.startedAt}:${hashId(parsed.rrMs.join(","))}`,
        meta: { format: parsed.format ?? "unknown", unit: parsed.unit ?? "ms" },
      },
    ];
  } finally {
    report.done = true;
  }
}
