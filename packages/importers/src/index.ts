/**
 * @tonus/importers — streaming readers for the health-data exports people have (FIT files, Apple Health
 * export.xml and export.zip, CSV exports) that yield normalized records and end in a report with
 * reasons. Pure TypeScript over `AsyncIterable<Uint8Array>` chunks and web-standard APIs; Node-specific
 * helpers (files, streams) live in `@tonus/importers/node`. Bad input never throws: it ends in the report.
 */

export { hashId } from "./apple-health/apple-health-attrs.ts";
export { type AppleHealthOptions, importAppleHealthXml } from "./apple-health/apple-health-import.ts";
export { importAppleHealthZip } from "./apple-health/apple-health-zip.ts";
export { activityName, parseHealthDate, QUANTITY_TYPES } from "./apple-health/types-map.ts";
export {
  cleanXmlValue,
  MAX_MARKUP_BYTES,
  type XmlAttributes,
  type XmlHandler,
  XmlScanner,
} from "./apple-health/xml-scanner.ts";
export { chunksOf, collect, DECODE_SLICE_BYTES, decodeSlices, peek } from "./chunks.ts";
export {
  type CsvColumn,
  type CsvImportOptions,
  type CsvMapping,
  type CsvPreview,
  importCsv,
  parseCsvNumber,
} from "./csv/csv-import.ts";
export { type DateFormat, parseDateTime, parseOffsetMinutes, slashOrder } from "./csv/dates.ts";
export {
  type CsvExportFormat,
  detectExportFormat,
  type HealthExportOptions,
  importHealthExport,
} from "./csv/exports.ts";
export { splitJsonArray } from "./csv/fitbit-json.ts";
export { previewCsv } from "./csv/preview.ts";
export { type CsvRow, detectDelimiter, MAX_ROW_CHARS, readCsvRows } from "./csv/rows.ts";
export { decodeText, type TextOptions } from "./csv/text.ts";
export { CSV_METRICS, convertCsvValue, metricForHeader, unitInHeader } from "./csv/units.ts";
export { dailyClientId, isDailyClientId, localDate } from "./daily.ts";
export { detectFileKind, type FileKind } from "./detect.ts";
export { ImportInputError } from "./errors.ts";
export { updateFitCrc } from "./fit/crc.ts";
export {
  FIT_EPOCH_S,
  FitDecoder,
  type FitDecoderOptions,
  type FitMessage,
  type FitValue,
} from "./fit/decoder.ts";
export { FIT_MESSAGE, importFit } from "./fit/fit-import.ts";
export { createReport, MAX_KEPT_REJECTIONS } from "./report.ts";
export { importRrText, MAX_RR_TEXT_BYTES } from "./rr-text.ts";
export type * from "./types.ts";
export { updateCrc32 } from "./zip/crc32.ts";
export {
  bytesSource,
  DEFAULT_ZIP_LIMITS,
  findZipEntry,
  isSafeZipPath,
  openZip,
  type RandomAccessSource,
  readZipEntry,
  type ZipArchive,
  type ZipEntry,
  type ZipLimits,
  type ZipReadProgress,
} from "./zip/zip-reader.ts";
