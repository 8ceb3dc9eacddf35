// Imports as the API answers them, for the sources feature's tests.
import type { Import, ImportReport } from "@tonus/contract";

/** An Apple Health import of 2 KB, running unless `over` says otherwise. */
export const anImport = (over: Partial<Import> = {}): Import => ({
  id: "imp-1",
  source_slug: "apple-health",
  file_name: "export.zip",
  size_bytes: 2048,
  kind: "apple_health_zip",
  status: "running",
  cancel_requested: false,
  created: "2026-11-27T09:00:00Z",
  started_at: "2026-11-27T09:00:01Z",
  finished_at: null,
  progress: { bytes_read: 0, bytes_total: 2048, records_read: 0, imported: 0, duplicates: 0, rejected: 0 },
  report: null,
  preview: null,
  ...over,
});

/** A report that counts nothing unless `over` says otherwise. */
export const aReport = (over: Partial<ImportReport> = {}): ImportReport => ({
  format: "apple_health_zip",
  read: 0,
  imported: 0,
  duplicates: 0,
  rejected: 0,
  ignored: 0,
  measurements: 0,
  bp_readings: 0,
  rejections: [],
  warnings: [],
  fatal: null,
  ...over,
});
