// Apple Health's export.zip: find export.xml inside (`apple_health_export/export.xml`, older exports
// `export/export.xml`), stream it through the XML importer. Nothing else is unpacked; nested archives
// are never expanded.
import { ImportInputError } from "../errors.ts";
import { createReport, createSession, fail, warn } from "../report.ts";
import type { ImportRecord, ImportReport, ImportSession } from "../types.ts";
import {
  findZipEntry,
  openZip,
  type RandomAccessSource,
  readZipEntry,
  type ZipLimits,
  type ZipReadProgress,
} from "../zip/zip-reader.ts";
import { type AppleHealthOptions, runAppleHealthXml } from "./apple-health-import.ts";

const EXPORT_XML = /(^|\/)export\.xml$/i;

/**
 * Imports an Apple Health `export.zip` read through `source`. The archive is checked before anything
 * is inflated (see `openZip`: unsafe paths, symlinks, too many entries, declared sizes and ratio) and
 * the export.xml entry is inflated as a stream under the same caps; `report.bytesRead` counts
 * compressed bytes, so progress is against the upload's size. A hostile or broken archive ends with
 * `report.fatal` (`zip_*`); an archive without export.xml with `zip_entry_not_found`.
 */
export function importAppleHealthZip(
  source: RandomAccessSource,
  options: AppleHealthOptions & { limits?: Partial<ZipLimits> } = {},
): ImportSession {
  const report = createReport("apple_health_zip");
  return createSession(report, run(source, options, report));
}

async function* run(
  source: RandomAccessSource,
  options: AppleHealthOptions & { limits?: Partial<ZipLimits> },
  report: ImportReport,
): AsyncGenerator<ImportRecord[], void, undefined> {
  try {
    const zip = await openZip(source, options.limits);
    for (const e of zip.entries) {
      if (/\.(zip|gz|tgz|7z|rar)$/i.test(e.name))
        warn(report, { reason: "unsupported_type", detail: `nested archive ${e.name} not expanded` });
    }
    const entry = findZipEntry(zip, (e) => EXPORT_XML.test(e.name));
    if (!entry) {
      fail(report, { reason: "zip_entry_not_found", detail: "export.xml" });
      return;
    }
    const progress: ZipReadProgress = { compressedBytes: 0 };
    const chunks = readZipEntry(zip, entry, progress);
    // Resuming: deflate cannot seek, so the entry is inflated again and its first bytes dropped unparsed.
    let skip = options.resumeFrom ?? 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of chunks) {
        report.bytesRead = progress.compressedBytes;
        if (skip >= chunk.length) {
          skip -= chunk.length;
          continue;
        }
        const rest = skip > 0 ? chunk.subarray(skip) : chunk;
        skip = 0;
        yield rest;
      }
    }
    yield* runAppleHealthXml(counted(), options, report, false);
  } catch (e) {
    if (!(e instanceof ImportInputError)) throw e;
    fail(report, e.rejection);
  } finally {
    report.done = true;
  }
}
