import type { BpCategory, BpReading } from "@tonus/contract";
import { computeBpIndices } from "@tonus/hrv";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";

/** The ESC/ESH category as a coloured badge with its text (colour is never the only signal). */
export function CategoryBadge({ category }: { category: BpCategory }) {
  const { t } = useTranslation();
  return <span className={`bp-badge bp-badge--${category}`}>{t(`bp.category.${category}`)}</span>;
}

function formatWhen(reading: BpReading, language: string): string {
  try {
    return new Intl.DateTimeFormat(language, {
      dateStyle: "medium",
      timeStyle: "short",
      timeZone: reading.time_zone,
    }).format(new Date(reading.measured_at));
  } catch {
    return new Date(reading.measured_at).toLocaleString(language);
  }
}

/** Kerdo and Robinson, which need only the reading and its pulse. */
function IndicesText({ reading }: { reading: BpReading }) {
  const { t, i18n } = useTranslation();
  if (reading.pulse === null) return <span className="muted">—</span>;
  const indices = computeBpIndices({
    systolic: reading.systolic,
    diastolic: reading.diastolic,
    hrBpm: reading.pulse,
  });
  const number = new Intl.NumberFormat(i18n.language, { maximumFractionDigits: 0 });
  return (
    <span>
      {t("bp.indices.kerdo")} {number.format(indices.kerdo ?? 0)} · {t("bp.indices.robinson")}{" "}
      {number.format(indices.robinson ?? 0)}
    </span>
  );
}

/**
 * Readings newest first. With `onEdit`/`onDelete` the owner gets row actions; a share viewer gets
 * the same table read-only.
 */
export function ReadingsTable({
  readings,
  onEdit,
  onDelete,
}: {
  readings: readonly BpReading[];
  onEdit?: (reading: BpReading) => void;
  onDelete?: (reading: BpReading) => void;
}) {
  const { t, i18n } = useTranslation();
  const hasActions = onEdit !== undefined || onDelete !== undefined;
  return (
    <div className="bp-table-wrap">
      <table className="bp-table">
        <caption className="visually-hidden">{t("bp.table.caption")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("bp.table.when")}</th>
            <th scope="col">{t("bp.table.pressure")}</th>
            <th scope="col">{t("bp.table.pulse")}</th>
            <th scope="col">{t("bp.table.category")}</th>
            <th scope="col">{t("bp.table.indices")}</th>
            <th scope="col">{t("bp.table.arm")}</th>
            <th scope="col">{t("bp.table.note")}</th>
            {hasActions && (
              <th scope="col" className="no-print">
                <span className="visually-hidden">{t("bp.table.actions")}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {readings.map((reading) => (
            <tr key={reading.id}>
              <td>{formatWhen(reading, i18n.language)}</td>
              <td className="bp-table__pressure">
                {reading.systolic}/{reading.diastolic}
              </td>
              <td>{reading.pulse ?? "—"}</td>
              <td>
                <CategoryBadge category={reading.category} />
              </td>
              <td>
                <IndicesText reading={reading} />
              </td>
              <td>{reading.arm ? t(`bp.arm.${reading.arm}`) : "—"}</td>
              <td className="bp-table__note">{reading.note}</td>
              {hasActions && (
                <td className="bp-table__actions no-print">
                  {onEdit && (
                    <Button
                      variant="ghost"
                      onClick={() => onEdit(reading)}
                      aria-label={t("bp.edit_label", { when: formatWhen(reading, i18n.language) })}
                    >
                      {t("bp.edit")}
                    </Button>
                  )}
                  {onDelete && (
                    <Button
                      variant="ghost"
                      onClick={() => onDelete(reading)}
                      aria-label={t("bp.delete_label", { when: formatWhen(reading, i18n.language) })}
                    >
                      {t("bp.delete")}
                    </Button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
