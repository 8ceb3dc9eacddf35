/**
 * @tonus/importers — streaming readers for the health-data exports people have (FIT files, Apple Health
 * export.xml and export.zip, CSV exports) that yield normalized records and end in a report with
 * reasons. Pure TypeScript over `AsyncIterable<Uint8Array>` chunks and web-standard APIs; Node-specific
 * helpers (files, streams) live in `@tonus/importers/node`. Bad input never throws: it ends in the report.
 */

export { chunksOf, collect } from "./chunks.ts";
export {
  FIT_EPOCH_S,
  FitDecoder,
  type FitDecoderOptions,
  type FitMessage,
  type FitValue,
} from "./fit/decoder.ts";
export { FIT_MESSAGE, importFit } from "./fit/fit-import.ts";
export { createReport, MAX_KEPT_REJECTIONS } from "./report.ts";
export type * from "./types.ts";
