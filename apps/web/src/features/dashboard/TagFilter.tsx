import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";
import { formatNumber } from "./format.ts";

/** Tags shown before "Show all": the most used ones. */
const FIRST_TAGS = 12;

/**
 * The tag filter of My health data (spec §5: only there): measurements must carry every chosen tag.
 * Checkboxes, most used tags first.
 */
export function TagFilter({
  tags,
  selected,
  onChange,
}: {
  tags: readonly { tag: string; count: number }[];
  selected: readonly string[];
  onChange: (tags: string[]) => void;
}) {
  const { t, i18n } = useTranslation();
  const [isExpanded, setIsExpanded] = useState(false);
  if (tags.length === 0) return null;
  // A chosen tag stays visible even when it is not among the most used.
  const shown = isExpanded
    ? tags
    : tags.filter((tag, index) => index < FIRST_TAGS || selected.includes(tag.tag));
  const toggle = (tag: string) =>
    onChange(selected.includes(tag) ? selected.filter((s) => s !== tag) : [...selected, tag]);

  return (
    <fieldset className="tag-filter">
      <legend>{t("dashboard.tags.legend")}</legend>
      <p className="field__hint">{t("dashboard.tags.hint")}</p>
      <div className="tag-filter__options">
        {shown.map(({ tag, count }) => (
          <label key={tag} className="chip">
            <input type="checkbox" checked={selected.includes(tag)} onChange={() => toggle(tag)} />
            <span>{tag}</span>
            <span className="chip__count">
              {t("dashboard.tags.count", { count, total: formatNumber(count, 0, i18n.language) })}
            </span>
          </label>
        ))}
      </div>
      <div className="actions">
        {tags.length > shown.length && (
          <Button variant="ghost" onClick={() => setIsExpanded(true)}>
            {t("dashboard.tags.show_all", { total: tags.length })}
          </Button>
        )}
        {selected.length > 0 && (
          <Button variant="ghost" onClick={() => onChange([])}>
            {t("dashboard.tags.clear")}
          </Button>
        )}
      </div>
    </fieldset>
  );
}
