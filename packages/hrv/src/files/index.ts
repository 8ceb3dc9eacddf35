export { detectRrFileFormat, parseRrFile } from "./rr-file.ts";
export type {
  ParsedRrFile,
  ParseRrFileOptions,
  RrFileFormat,
  RrFileIssue,
  RrFileIssueCode,
} from "./types.ts";
