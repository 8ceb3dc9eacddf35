import type { ImportRecord, ImportReport, ImportSession, Rejection } from "./types.ts";

/** At most this many rejections (and warnings) are kept in a report; the counts keep going. */
export const MAX_KEPT_REJECTIONS = 1000;

/** A fresh, empty report for `format`. */
export function createReport(format: string): ImportReport {
  return {
    format,
    bytesRead: 0,
    read: 0,
    emitted: 0,
    ignored: 0,
    rejectedCount: 0,
    rejected: [],
    warnings: [],
    done: false,
  };
}

/** Counts a rejected item and keeps its reason while there is room. */
export function reject(report: ImportReport, rejection: Rejection): undefined {
  report.rejectedCount++;
  if (report.rejected.length < MAX_KEPT_REJECTIONS) report.rejected.push(rejection);
}

/** Keeps a warning once per reason+detail, while there is room. */
export function warn(report: ImportReport, warning: Rejection): undefined {
  if (report.warnings.length >= MAX_KEPT_REJECTIONS) return;
  if (report.warnings.some((w) => w.reason === warning.reason && w.detail === warning.detail)) return;
  report.warnings.push(warning);
}

/** Records the first whole-file problem (later ones are consequences of it). */
export function fail(report: ImportReport, rejection: Rejection): void {
  report.fatal ??= rejection;
}

/** Wraps a batch generator as an {@link ImportSession} whose `records` flattens the same batches. */
export function createSession(
  report: ImportReport,
  batches: AsyncGenerator<ImportRecord[], void, undefined>,
): ImportSession {
  async function* records(): AsyncGenerator<ImportRecord, void, undefined> {
    for await (const batch of batches) yield* batch;
  }
  return { report, batches, records: records() };
}
