import {
  type DisplayUnit,
  displayUnitOf,
  hasLeftOut,
  type Import,
  type ImportProblem,
  isMetricKey,
  leftOutOf,
  toDisplayUnit,
} from "@tonus/contract";
import type { TFunction } from "i18next";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { useProfile } from "../profile/use-profile.ts";
import { formatImportTime } from "./import-format.ts";
import { isMobileBack, sourcePath } from "./source-paths.ts";

const SHOWN_PROBLEMS = 20;

/**
 * Where in the file a problem is: its line, the file inside a zip, or how far into the file (a share of
 * it: a byte offset means nothing to a person). Inside a zip an offset counts the unpacked file's bytes,
 * not the upload's, so it gives no share and is left out.
 */
function useWhere(item: Pick<Import, "kind" | "progress">) {
  const { t, i18n } = useTranslation();
  const number = (n: number) => new Intl.NumberFormat(i18n.language).format(n);
  const bytesTotal = item.progress.bytes_total;
  const zipped = item.kind === "zip" || item.kind === "apple_health_zip";
  const share = (offset: number) =>
    new Intl.NumberFormat(i18n.language, { style: "percent", maximumFractionDigits: 0 }).format(
      Math.min(1, offset / bytesTotal),
    );
  return (p: ImportProblem): string => {
    const parts: string[] = [];
    if (p.entry) parts.push(t("sources.report.in_entry", { entry: p.entry }));
    if (p.line !== undefined) parts.push(t("sources.report.at_line", { line: number(p.line) }));
    else if (p.offset !== undefined && !zipped && bytesTotal > 0)
      parts.push(t("sources.report.at_share", { share: share(p.offset) }));
    return parts.join(", ");
  };
}

/** Display units Intl can name (`style: "unit"`). */
const INTL_UNITS: Partial<Record<DisplayUnit, string>> = {
  kg: "kilogram",
  lb: "pound",
  g: "gram",
  oz: "ounce",
  cm: "centimeter",
  in: "inch",
  ft: "foot",
  km: "kilometer",
  mi: "mile",
  m: "meter",
  ms: "millisecond",
  percent: "percent",
  h: "hour",
  min: "minute",
  l: "liter",
  ml: "milliliter",
  fl_oz: "fluid-ounce",
  celsius: "celsius",
  fahrenheit: "fahrenheit",
};

/** Display units Intl cannot name but a value needs (`sources.report.value_units.*`); others are counts. */
const LABELLED_UNITS = new Set<DisplayUnit>(["bpm", "kcal", "kj", "mmhg", "per_min", "ms2"]);

/**
 * The refused value of an out-of-range problem, named and in the person's units ("Heart rate: 900 bpm",
 * «Вес: 4000 кг», "Weight: 8,818.49 lb"), from the server's `detail` ("<metric> <storage value>"); ""
 * for any other problem.
 */
function useRefusedValue() {
  const { t, i18n } = useTranslation();
  const profile = useProfile().data;
  return (p: ImportProblem): string => {
    const m = p.reason === "out_of_range" ? /^([a-z_0-9]+) (\S+)$/.exec(p.detail ?? "") : null;
    const value = Number(m?.[2]);
    const metric = m?.[1] ?? "";
    const nameKey = `sources.metrics.${metric}`;
    if (!m || !Number.isFinite(value) || !isMetricKey(metric) || !i18n.exists(nameKey)) return "";
    const unit = displayUnitOf(metric, profile?.units ?? "metric", profile?.energy_unit);
    const intlUnit = INTL_UNITS[unit];
    const number = new Intl.NumberFormat(i18n.language, {
      maximumFractionDigits: 2,
      ...(intlUnit ? { style: "unit", unit: intlUnit } : {}),
    }).format(toDisplayUnit(value, unit));
    const shown = LABELLED_UNITS.has(unit)
      ? t(`sources.report.value_units.${unit}`, { value: number })
      : number;
    return t("sources.report.refused_value", { metric: t(nameKey), value: shown });
  };
}

/**
 * The report's title key. A file that breaks off part-way ends "done" with what came before the break;
 * one that brought nothing says why: all of it stored before, every record refused, or nothing in it
 * Tonus keeps.
 */
function titleKey(item: Import): string {
  const r = item.report;
  if (item.status !== "done" || !r) return `title_${item.status}`;
  if (r.imported > 0) return r.fatal ? "title_partial" : "title_done";
  if (r.duplicates > 0) return "title_nothing_new";
  if (r.fatal) return "title_failed";
  return r.rejected > 0 ? "title_all_refused" : "title_empty";
}

/** Problems whose `detail` on a line is the file's own text (`Heart rate: abc`, `31.02.2024`). */
const QUOTED_REASONS = new Set<ImportProblem["reason"]>(["invalid_value", "invalid_date", "ambiguous_date"]);

/**
 * Problems in the order of the file: a zip's files in the order their first problem came, and within
 * one file by line, else by offset (the parser's problems and the server's mixed); lines and offsets
 * are not compared, a file's problems with a line coming first.
 */
function byPlace(problems: readonly ImportProblem[]): ImportProblem[] {
  const entries = new Map<string | undefined, number>();
  for (const p of problems) if (!entries.has(p.entry)) entries.set(p.entry, entries.size);
  const far = Number.POSITIVE_INFINITY;
  return [...problems].sort(
    (a, b) =>
      (entries.get(a.entry) ?? 0) - (entries.get(b.entry) ?? 0) ||
      (a.line ?? far) - (b.line ?? far) ||
      (a.offset ?? far) - (b.offset ?? far),
  );
}

/** The report's title, as its heading says it. */
export function reportTitle(item: Import, t: TFunction): string {
  return t(`sources.report.${titleKey(item)}`, { name: item.file_name });
}

/**
 * What the import left out on purpose (the report's warnings): types and columns Tonus does not keep,
 * files in an archive it does not read, beat intervals out of range. Nothing here is an error.
 */
function LeftOutList({
  item,
  where,
  Heading,
}: {
  item: Import;
  where: (p: ImportProblem) => string;
  Heading: "h4" | "h5";
}) {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  const left = leftOutOf(item.report?.warnings ?? []);
  if (!hasLeftOut(left)) return null;
  const list = (names: string[]) => new Intl.ListFormat(i18n.language, { type: "conjunction" }).format(names);
  // Names from the file with spaces in them read as names when quoted ("Heart rate" and "Steps").
  const quotedList = (names: string[]) => list(names.map((text) => t("sources.report.quoted", { text })));
  const csvPage = sourcePath(pathname, "csv-file");
  return (
    <>
      <Heading>{t("sources.report.left_out")}</Heading>
      <ul className="import-report__left-out">
        {left.types.length > 0 && <li>{t("sources.report.left_out_types", { list: list(left.types) })}</li>}
        {left.columns.length > 0 && (
          <li>
            {t("sources.report.left_out_columns", { list: quotedList(left.columns) })}{" "}
            <Link to={csvPage}>{t("sources.report.left_out_columns_link")}</Link>
          </li>
        )}
        {left.files.length > 0 && (
          <li>{t("sources.report.left_out_files", { list: quotedList(left.files) })}</li>
        )}
        {left.csvs.length > 0 && (
          <li>
            {t("sources.report.left_out_csvs", { list: quotedList(left.csvs) })}{" "}
            <Link to={csvPage}>{t("sources.report.left_out_csvs_link")}</Link>
          </li>
        )}
        {left.rrOutside > 0 && (
          <li>
            {t("sources.report.left_out_rr", {
              count: left.rrOutside,
              formatted: new Intl.NumberFormat(i18n.language).format(left.rrOutside),
            })}
          </li>
        )}
        {left.developerFields && <li>{t("sources.report.left_out_developer")}</li>}
        {left.undatedMessages && <li>{t("sources.report.left_out_undated")}</li>}
        {left.entitiesDeclared && <li>{t("sources.report.left_out_entities")}</li>}
        {left.other.map((p, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no id and never reorder
          <li key={i}>
            {t(`sources.reasons.${p.reason}`)}
            {where(p) && ` (${where(p)})`}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * The end of an import: what was read, imported, already there, refused and why. `earlier` for one
 * listed among an entry's earlier imports: a level deeper, not announced, without the links onward
 * (the latest import's report has them).
 */
export function ImportReportView({ item, earlier = false }: { item: Import; earlier?: boolean }) {
  const { t, i18n } = useTranslation();
  const where = useWhere(item);
  const refusedValue = useRefusedValue();
  // The file's own text a problem is about, quoted in the reader's language; not the server's wording.
  const quoted = (p: ImportProblem) =>
    p.line !== undefined && p.detail && QUOTED_REASONS.has(p.reason)
      ? t("sources.report.quoted", { text: p.detail })
      : "";
  const aside = (p: ImportProblem) => [refusedValue(p) || quoted(p), where(p)].filter(Boolean).join(", ");
  const report = item.report;
  // The mobile app shows the data on its own screens: its header-less pages lead nowhere else.
  const inApp = isMobileBack(useLocation().pathname);
  const number = (n: number) => new Intl.NumberFormat(i18n.language).format(n);
  const finished = item.finished_at ? formatImportTime(item.finished_at, i18n.language) : "";
  const rows: [string, number][] = report
    ? [
        ["read", report.read],
        ["imported", report.imported],
        ["duplicates", report.duplicates],
        ["rejected", report.rejected],
        ["ignored", report.ignored],
        ["measurements", report.measurements],
        ["bp_readings", report.bp_readings],
      ]
    : [];
  const [allShown, setAllShown] = useState(false);
  // The button that showed the rest is gone: the focus goes to the first problem it showed.
  const problemList = useRef<HTMLUListElement>(null);
  useEffect(() => {
    if (allShown) problemList.current?.querySelector<HTMLElement>("li[tabindex]")?.focus();
  }, [allShown]);
  const shownCount = Math.min(
    report?.rejections.length ?? 0,
    allShown ? Number.POSITIVE_INFINITY : SHOWN_PROBLEMS,
  );
  // Nothing came before the break, or before the cancel: saying it was kept would mislead.
  const keptAny = report !== null && report.imported + report.duplicates > 0;
  const Title = earlier ? "h4" : "h3";
  const Heading = earlier ? "h5" : "h4";
  return (
    <section className="import-report" aria-labelledby={`report-${item.id}`}>
      <Title id={`report-${item.id}`}>{reportTitle(item, t)}</Title>
      {finished && <p className="muted">{t("sources.report.finished_at", { when: finished })}</p>}
      {report?.fatal && (
        <Alert status={item.status === "failed" ? "error" : "info"} announced={!earlier}>
          {/* A damaged header past the start: a FIT file chained after readable ones (Garmin writes several in one). */}
          {report.fatal.reason === "invalid_header" && (report.fatal.offset ?? 0) > 0
            ? t("sources.reasons.invalid_header_later")
            : t(`sources.reasons.${report.fatal.reason}`)}
          {where(report.fatal) && ` (${where(report.fatal)})`}
          {item.status === "done" && keptAny && ` ${t("sources.report.kept_before")}`}
        </Alert>
      )}
      {item.status === "cancelled" && (
        <p>{t(keptAny ? "sources.report.cancelled_note" : "sources.report.cancelled_nothing")}</p>
      )}
      <dl className="import-report__counts">
        {rows.map(([key, value]) => (
          <div key={key}>
            <dt>{t(`sources.report.${key}`)}</dt>
            <dd>{number(value)}</dd>
          </div>
        ))}
      </dl>
      {report && report.imported > 0 && !inApp && !earlier && (
        <nav className="import-report__next" aria-label={t("sources.report.next_label")}>
          <Link to="/dashboard">{t("sources.report.see_dashboard")}</Link>
          {report.measurements > 0 && <Link to="/measurements">{t("sources.report.see_measurements")}</Link>}
          {report.bp_readings > 0 && <Link to="/blood-pressure">{t("sources.report.see_bp")}</Link>}
        </nav>
      )}
      {report && report.rejections.length > 0 && (
        <>
          <Heading>{t("sources.report.problems")}</Heading>
          <ul className="import-report__problems" ref={problemList}>
            {byPlace(report.rejections)
              .slice(0, allShown ? undefined : SHOWN_PROBLEMS)
              .map((p, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: problems have no id and never reorder
                <li key={i} tabIndex={i === SHOWN_PROBLEMS ? -1 : undefined}>
                  {t(`sources.reasons.${p.reason}`)}
                  {aside(p) && ` (${aside(p)})`}
                </li>
              ))}
          </ul>
          {!allShown && report.rejections.length > SHOWN_PROBLEMS && (
            <button
              type="button"
              className="link-button import-report__more"
              onClick={() => setAllShown(true)}
            >
              {t("sources.report.show_kept", { count: report.rejections.length - SHOWN_PROBLEMS })}
            </button>
          )}
          {/* The server keeps the first problems only (the counts go on). */}
          {shownCount < report.rejected && (allShown || report.rejections.length <= SHOWN_PROBLEMS) && (
            <p className="muted">
              {t("sources.report.more_problems", { count: report.rejected - shownCount })}
            </p>
          )}
        </>
      )}
      <LeftOutList item={item} where={where} Heading={Heading} />
    </section>
  );
}
