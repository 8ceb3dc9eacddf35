// What an upload is, decided from its content before any job starts: the importer kind, a zip's
// central directory checked (hostile archives are refused whole, RELIABILITY U4), a generic CSV's
// preview for the column-mapping step.
import {
  CsvMetricSchema,
  type CsvPreview,
  type ImportKind,
  type ImportReason,
  ImportReasonSchema,
} from "@tonus/contract";
import {
  detectFileKind,
  findZipEntry,
  ImportInputError,
  openZip,
  previewCsv,
  type ZipLimits,
} from "@tonus/importers";
import { openFileSource, readFileChunks } from "@tonus/importers/node";

export type Detected =
  | { ok: true; kind: ImportKind; preview?: CsvPreview }
  | { ok: false; reason: ImportReason; detail?: string };

const EXPORT_XML = /(^|\/)export\.xml$/i;

function refused(reason: string, detail?: string): Detected {
  const parsed = ImportReasonSchema.safeParse(reason);
  return {
    ok: false,
    reason: parsed.success ? parsed.data : "unknown_format",
    ...(detail ? { detail: detail.slice(0, 200) } : {}),
  };
}

/**
 * Recognises the stored upload `file` from its first bytes (`head`) and, for a zip, its directory.
 * `mapColumns`: a CSV goes to the column-mapping step even when its header looks like a known app's
 * export (uploaded as "any other CSV", whose entry promises a preview to confirm: a file with
 * Withings-like columns must not lose the others).
 */
export async function detectUpload(
  file: string,
  head: Uint8Array,
  fileName: string,
  options: { zipLimits?: Partial<ZipLimits>; mapColumns?: boolean } = {},
): Promise<Detected> {
  if (head.length === 0) return refused("empty_file");
  const found = detectFileKind(head, fileName);
  switch (found.kind) {
    case "fit":
      return { ok: true, kind: "fit" };
    case "apple_health_xml":
      return { ok: true, kind: "apple_health_xml" };
    case "health_export":
      // Fitbit's JSON has no columns, and Samsung Health's header is not its first line: their own
      // readers read them, wherever they were uploaded.
      if (options.mapColumns && found.format !== "fitbit_json" && found.format !== "samsung_health")
        return detectCsv(file);
      return { ok: true, kind: "health_export" };
    case "rr_text":
      return { ok: true, kind: "rr_text" };
    case "zip":
      return detectZip(file, options.zipLimits);
    case "csv":
      return detectCsv(file);
    default:
      // A damaged FIT header is not recognised by content; its name says what it was meant to be, and
      // the FIT reader's report then says what is wrong with it.
      if (/\.fit$/i.test(fileName)) return { ok: true, kind: "fit" };
      return refused("unknown_format");
  }
}

async function detectZip(file: string, zipLimits?: Partial<ZipLimits>): Promise<Detected> {
  const source = await openFileSource(file);
  try {
    const zip = await openZip(source, zipLimits);
    if (findZipEntry(zip, (e) => EXPORT_XML.test(e.name))) return { ok: true, kind: "apple_health_zip" };
    if (!zip.entries.some((e) => !e.isDirectory)) return refused("empty_file", "empty zip");
    return { ok: true, kind: "zip" };
  } catch (e) {
    if (!(e instanceof ImportInputError)) throw e;
    return refused(e.rejection.reason, e.rejection.detail);
  } finally {
    await source.close();
  }
}

async function detectCsv(file: string): Promise<Detected> {
  const p = await previewCsv(readFileChunks(file, { chunkSize: 64 * 1024 }));
  if (p.header.length === 0) {
    // previewCsv reports a text it cannot decode as a warning starting with the reason code.
    const reason = /^([a-z0-9_]+)/.exec(p.warnings[0] ?? "")?.[1] ?? "unknown_format";
    return refused(reason, p.warnings[0]);
  }
  const columns =
    p.suggested?.columns.flatMap((c) => {
      const metric = CsvMetricSchema.safeParse(c.metric);
      if (!metric.success) return [];
      return [{ column: c.column, metric: metric.data, ...(c.unit ? { unit: c.unit } : {}) }];
    }) ?? [];
  const cut = (s: string) => s.slice(0, 200);
  const preview: CsvPreview = {
    delimiter: p.delimiter,
    header: p.header.slice(0, 50).map(cut),
    rows: p.rows.slice(0, 20).map((r) => r.slice(0, 50).map(cut)),
    date_order: p.dateOrder,
    suggested:
      p.suggested && columns.length > 0
        ? {
            time: cut(p.suggested.time),
            ...(p.dateOrder === "iso" || p.dateOrder === "dmy" || p.dateOrder === "mdy"
              ? { time_format: p.dateOrder }
              : {}),
            columns,
          }
        : null,
    warnings: p.warnings.map(cut),
  };
  return { ok: true, kind: "csv", preview };
}
