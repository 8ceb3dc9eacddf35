// Reading an uploaded file into batches of records with a checkpoint each: the part of an import that
// runs in the worker thread (pure CPU and file reads, no database). Apple Health resumes from the
// scanner's byte offset; every other format is read again from the start and the records already
// committed are skipped (their order and ids are the same on every read).
import type { ImportKind, ImportProblem, ImportReason } from "@tonus/contract";
import {
  type CsvMapping,
  DEFAULT_ZIP_LIMITS,
  detectFileKind,
  ImportInputError,
  type ImportRecord,
  type ImportReport,
  type ImportSession,
  importAppleHealthXml,
  importAppleHealthZip,
  importCsv,
  importFit,
  importHealthExport,
  importRrText,
  openZip,
  peek,
  readZipEntry,
  type ZipLimits,
  type ZipReadProgress,
} from "@tonus/importers";
import { openFileSource, readFileChunks } from "@tonus/importers/node";

/**
 * Records per database batch (one transaction each); RR series and readings are slower, fewer per batch.
 * PGlite runs each statement on the server's own thread, so its batches are smaller: the API waits at
 * most one statement (bench: p99 during an import 180 ms instead of 620 ms, 8 % fewer records/s).
 * PostgreSQL's 10,000 a batch: fewer statements and commits a second than at 5,000 (bench, 200 MB: about
 * 10 % more records/s); 20,000 were no faster and hold twice as many records in memory.
 */
export const BATCH_SIZES = {
  postgres: { records: 10000, slow: 200 },
  pglite: { records: 1000, slow: 20 },
} as const;
export type BatchSize = { records: number; slow: number };
/** Problems a report keeps (the counts go on). */
export const KEPT_PROBLEMS = 100;

export type ReaderOptions = {
  file: string;
  kind: ImportKind;
  fileName: string;
  /** Minutes east of UTC for exports written in local time without a zone. */
  timezoneOffsetMin: number;
  /** Date of an RR text file's measurement (such files carry none), ms UTC. */
  recordedAtMs: number;
  mapping?: CsvMapping;
  checkpoint: Checkpoint | null;
  zipLimits?: Partial<ZipLimits>;
  /** Batch size (default PostgreSQL's). */
  batchSize?: BatchSize;
};

/** What the parser had reached when a batch was committed. */
export type ParserCounts = {
  format: string;
  read: number;
  ignored: number;
  rejected: number;
  rejections: ImportProblem[];
  warnings: ImportProblem[];
  fatal: ImportProblem | null;
};

/** Stored with each committed batch: where a restarted run continues. */
export type Checkpoint = {
  /** Records handed out and committed so far. */
  records: number;
  /** Apple Health: the scanner's resume offset after those records. */
  resumeOffset?: number;
  /** Apple Health: the parser's counts up to the resume offset (a resumed run adds its own). */
  base?: ParserCounts;
};

export type ReaderBatch<B = ImportRecord[]> = {
  /** The batch's records, or what a `RecordSink` made of them. */
  records: B;
  /** Records handed out up to and including this batch. */
  recordsEnd: number;
  resumeOffset?: number;
  bytesRead: number;
  counts: ParserCounts;
};

export function emptyCounts(format = ""): ParserCounts {
  return { format, read: 0, ignored: 0, rejected: 0, rejections: [], warnings: [], fatal: null };
}

function problem(r: { reason: string; line?: number; offset?: number; detail?: string }, entry?: string) {
  const p: ImportProblem = { reason: r.reason as ImportReason };
  if (r.line !== undefined) p.line = r.line;
  if (r.offset !== undefined) p.offset = r.offset;
  if (r.detail !== undefined) p.detail = r.detail.slice(0, 200);
  if (entry !== undefined) p.entry = entry.slice(0, 200);
  return p;
}

/** Adds `report` (one file or one zip entry) to the running counts. */
export function addReport(into: ParserCounts, report: ImportReport, entry?: string): void {
  into.read += report.read;
  into.ignored += report.ignored;
  into.rejected += report.rejectedCount;
  for (const r of report.rejected) {
    if (into.rejections.length >= KEPT_PROBLEMS) break;
    into.rejections.push(problem(r, entry));
  }
  for (const w of report.warnings) {
    if (into.warnings.length >= KEPT_PROBLEMS) break;
    into.warnings.push(problem(w, entry));
  }
  if (report.fatal) {
    if (entry === undefined) into.fatal ??= problem(report.fatal);
    else {
      // One bad file in a zip of files: the others still count.
      into.rejected++;
      if (into.rejections.length < KEPT_PROBLEMS) into.rejections.push(problem(report.fatal, entry));
    }
  }
}

export function mergeCounts(a: ParserCounts, b: ParserCounts): ParserCounts {
  return {
    format: b.format || a.format,
    read: a.read + b.read,
    ignored: a.ignored + b.ignored,
    rejected: a.rejected + b.rejected,
    rejections: [...a.rejections, ...b.rejections].slice(0, KEPT_PROBLEMS),
    warnings: [...a.warnings, ...b.warnings].slice(0, KEPT_PROBLEMS),
    fatal: b.fatal ?? a.fatal,
  };
}

const isSlow = (r: ImportRecord) => r.kind === "rr" || r.kind === "bp";

/**
 * Takes a batch's records as they are read and answers what the batch carries when it is full: the
 * records themselves by default; the reader thread encodes each at once, so none lives until then.
 */
export type RecordSink<B> = { add: (record: ImportRecord) => void; take: () => B };

function recordArray(): RecordSink<ImportRecord[]> {
  let records: ImportRecord[] = [];
  return {
    add: (r) => void records.push(r),
    take: () => {
      const out = records;
      records = [];
      return out;
    },
  };
}

/**
 * Reads the file and yields batches of at most `batchSize.records` records (`batchSize.slow` RR series
 * or readings), each with the checkpoint a restart would continue from. Never throws for bad input: the
 * final counts (the generator's return value) carry `fatal` and the rejections.
 */
export function readImport(opts: ReaderOptions): AsyncGenerator<ReaderBatch, ParserCounts>;
export function readImport<B>(
  opts: ReaderOptions,
  sink: RecordSink<B>,
): AsyncGenerator<ReaderBatch<B>, ParserCounts>;
export async function* readImport<B>(
  opts: ReaderOptions,
  sink: RecordSink<B> = recordArray() as unknown as RecordSink<B>,
): AsyncGenerator<ReaderBatch<B>, ParserCounts> {
  const isAppleHealth = opts.kind === "apple_health_xml" || opts.kind === "apple_health_zip";
  const resumeFrom = isAppleHealth ? (opts.checkpoint?.resumeOffset ?? 0) : 0;
  const skip = isAppleHealth ? 0 : (opts.checkpoint?.records ?? 0);
  // Counted from the start of the file for every kind: the checkpoint a resumed run writes must count
  // the records skipped too, or a second restart would read them again.
  let handedOut = opts.checkpoint?.records ?? 0;
  let seen = 0;
  const base = isAppleHealth && opts.checkpoint?.base ? opts.checkpoint.base : emptyCounts();
  const source = await openSessions(opts, resumeFrom);
  const counts = () => mergeCounts(base, source.counts());
  const size = opts.batchSize ?? BATCH_SIZES.postgres;
  let pending = 0;
  let slow = 0;
  let lastResume: number | undefined;
  const flush = (): ReaderBatch<B> => {
    handedOut += pending;
    const batch: ReaderBatch<B> = {
      records: sink.take(),
      recordsEnd: handedOut,
      bytesRead: source.bytesRead(),
      counts: counts(),
    };
    if (lastResume !== undefined) batch.resumeOffset = lastResume;
    pending = 0;
    slow = 0;
    return batch;
  };
  try {
    for await (const chunk of source.batches()) {
      for (const record of chunk) {
        seen++;
        if (seen <= skip) continue;
        sink.add(record);
        pending++;
        if (isSlow(record)) slow++;
      }
      if (isAppleHealth) lastResume = source.resumeOffset();
      if (pending >= size.records || slow >= size.slow) yield flush();
    }
    if (pending > 0) yield flush();
  } finally {
    await source.close();
  }
  return counts();
}

type Sessions = {
  batches: () => AsyncGenerator<ImportRecord[]>;
  counts: () => ParserCounts;
  bytesRead: () => number;
  resumeOffset: () => number | undefined;
  close: () => Promise<void>;
};

async function openSessions(opts: ReaderOptions, resumeFrom: number): Promise<Sessions> {
  if (opts.kind === "apple_health_zip") {
    const file = await openFileSource(opts.file);
    const session = importAppleHealthZip(file, {
      ...(resumeFrom ? { resumeFrom } : {}),
      limits: { ...DEFAULT_ZIP_LIMITS, ...opts.zipLimits },
    });
    return single(session, () => file.close());
  }
  if (opts.kind === "zip") return zipOfFiles(opts);
  const chunks = readFileChunks(opts.file, resumeFrom ? { start: resumeFrom } : {});
  return single(openOne(opts.kind, chunks, opts, opts.fileName, resumeFrom), async () => {});
}

function openOne(
  kind: ImportKind,
  chunks: AsyncIterable<Uint8Array>,
  opts: ReaderOptions,
  fileName: string,
  resumeFrom = 0,
): ImportSession {
  switch (kind) {
    case "apple_health_xml":
      return importAppleHealthXml(chunks, resumeFrom ? { resumeFrom } : {});
    case "fit":
      return importFit(chunks);
    case "rr_text":
      return importRrText(chunks, { startedAt: opts.recordedAtMs, source: "rr_file" });
    case "csv":
      return importCsv(chunks, {
        mapping: {
          ...(opts.mapping ?? { time: "", columns: [] }),
          timezoneOffsetMin: opts.timezoneOffsetMin,
        },
        requireColumns: true,
      });
    default:
      return importHealthExport(chunks, { fileName, timezoneOffsetMin: opts.timezoneOffsetMin });
  }
}

function single(session: ImportSession, close: () => Promise<void>): Sessions {
  return {
    batches: () => session.batches,
    counts: () => {
      const c = emptyCounts(session.report.format);
      addReport(c, session.report);
      return c;
    },
    bytesRead: () => session.report.bytesRead,
    resumeOffset: () => session.report.resumeOffset,
    close,
  };
}

/** Kinds a file inside a zip may have (a generic CSV needs its own mapping, so it is uploaded alone). */
const INNER_KINDS = new Set(["fit", "health_export", "rr_text"]);

async function zipOfFiles(opts: ReaderOptions): Promise<Sessions> {
  const file = await openFileSource(opts.file);
  const counts = emptyCounts("zip");
  let doneBytes = 0;
  const progress: ZipReadProgress = { compressedBytes: 0 };
  async function* batches(): AsyncGenerator<ImportRecord[]> {
    let zip: Awaited<ReturnType<typeof openZip>>;
    try {
      zip = await openZip(file, opts.zipLimits);
    } catch (e) {
      if (!(e instanceof ImportInputError)) throw e;
      counts.fatal = problem(e.rejection);
      return;
    }
    for (const entry of zip.entries) {
      if (entry.isDirectory) continue;
      progress.compressedBytes = 0;
      try {
        const { head, replay } = await peek(readZipEntry(zip, entry, progress), 4096);
        const found = detectFileKind(head, entry.name);
        const kind = found.kind === "unknown" && /\.fit$/i.test(entry.name) ? "fit" : found.kind;
        if (!INNER_KINDS.has(kind)) {
          counts.ignored++;
          if (counts.warnings.length < KEPT_PROBLEMS)
            counts.warnings.push(
              problem({ reason: kind === "csv" ? "missing_field" : "unsupported_type" }, entry.name),
            );
          continue;
        }
        const session = openOne(kind as ImportKind, replay, opts, entry.name);
        for await (const batch of session.batches) yield batch;
        addReport(counts, session.report, entry.name);
      } catch (e) {
        if (!(e instanceof ImportInputError)) throw e;
        counts.rejected++;
        if (counts.rejections.length < KEPT_PROBLEMS)
          counts.rejections.push(problem(e.rejection, entry.name));
        // A bomb or a broken archive stops the whole zip: the caps are for the archive, not one entry.
        if (e.rejection.reason.startsWith("zip_")) {
          counts.fatal = problem(e.rejection, entry.name);
          return;
        }
      } finally {
        doneBytes += entry.compressedSize;
      }
    }
  }
  return {
    batches,
    counts: () => ({ ...counts, rejections: [...counts.rejections], warnings: [...counts.warnings] }),
    bytesRead: () => Math.min(file.size, doneBytes + progress.compressedBytes),
    resumeOffset: () => undefined,
    close: () => file.close(),
  };
}
