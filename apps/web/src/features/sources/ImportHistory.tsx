import type { Import } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { ImportReportView, reportTitle } from "./ImportReportView.tsx";
import { formatImportTime } from "./import-format.ts";
import { HISTORY_LIMIT, useImportHistory } from "./sources-api.ts";

/** What an earlier import brought, in the report's own words: imported, already there, refused. */
function countsOf(item: Import, t: (key: string) => string, language: string): string {
  const report = item.report;
  if (!report) return "";
  const number = new Intl.NumberFormat(language);
  const parts: [string, number][] = [["imported", report.imported]];
  if (report.duplicates > 0) parts.push(["duplicates", report.duplicates]);
  if (report.rejected > 0) parts.push(["rejected", report.rejected]);
  return parts.map(([key, n]) => `${t(`sources.report.${key}`)}: ${number.format(n)}`).join(" · ");
}

/** Whether a report says more than its counts: what was refused and why, left out, or broke it off. */
const hasDetails = (item: Import) =>
  Boolean(
    item.report &&
      (item.report.rejections.length > 0 || item.report.warnings.length > 0 || item.report.fatal),
  );

/**
 * The entry's earlier imports, newest first, below the one the panel shows: which file, when, how it
 * ended and what it brought, so a person importing again can tell what the last times did; the whole
 * report of one that says more than its counts. Folded away, and absent while there is none.
 */
export function ImportHistory({ slug, shown }: { slug: string; shown: string | null }) {
  const { t, i18n } = useTranslation();
  const history = useImportHistory(slug);
  if (history.isError) return <Alert status="error">{t("sources.history.load_failed")}</Alert>;
  const all = history.data?.results ?? [];
  const earlier = all.filter((item) => item.id !== shown);
  if (earlier.length === 0) return null;
  return (
    <details className="import-history">
      <summary>{t("sources.history.title")}</summary>
      <ul className="import-history__list">
        {earlier.map((item) => {
          const counts = countsOf(item, t, i18n.language);
          return (
            <li key={item.id} className="import-history__item">
              <span className="import-history__title">{reportTitle(item, t)}</span>
              <span className="muted">
                <time dateTime={item.finished_at ?? item.created}>
                  {formatImportTime(item.finished_at ?? item.created, i18n.language)}
                </time>
                {counts && ` · ${counts}`}
              </span>
              {hasDetails(item) && (
                <details className="import-history__report">
                  <summary>{t("sources.history.show_report")}</summary>
                  <ImportReportView item={item} earlier />
                </details>
              )}
            </li>
          );
        })}
      </ul>
      {all.length >= HISTORY_LIMIT && <p className="muted">{t("sources.history.latest_only")}</p>}
    </details>
  );
}
