import type { ChartFlows, ChartItemKey } from "@tonus/contract";
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";
import { pick } from "./format.ts";

/**
 * "Add chart": the catalogue by category with a search, saying which charts have data and which are
 * already on the dashboard. A native modal dialog: focus stays inside, Escape closes it, and focus
 * returns to the button that opened it.
 */
export function AddChartDialog({
  flows,
  present,
  isOpen,
  busyItem,
  error,
  onAdd,
  onClose,
}: {
  flows: ChartFlows;
  /** Charts already on the dashboard. */
  present: ReadonlySet<ChartItemKey>;
  isOpen: boolean;
  busyItem: ChartItemKey | null;
  error: string | null;
  onAdd: (item: ChartItemKey) => void;
  onClose: () => void;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const titleId = useId();
  const searchId = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [query, setQuery] = useState("");

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (isOpen && !dialog.open) {
      setQuery("");
      dialog.showModal();
    } else if (!isOpen && dialog.open) dialog.close();
  }, [isOpen]);

  const groups = useMemo(() => {
    const needle = query.trim().toLocaleLowerCase(language);
    const matches = (text: string) => text.toLocaleLowerCase(language).includes(needle);
    return [...flows.categories]
      .sort((a, b) => a.order_category - b.order_category)
      .map((category) => ({
        category,
        items: flows.items
          .filter((item) => {
            const inCategory = item.categories.find((c) => c.id === category.id);
            if (!inCategory) return false;
            return (
              !needle || matches(pick(item.title, language)) || matches(pick(item.description, language))
            );
          })
          .sort((a, b) => {
            const order = (i: typeof a) => i.categories.find((c) => c.id === category.id)?.order_item ?? 0;
            return order(a) - order(b);
          }),
      }))
      .filter((group) => group.items.length > 0);
  }, [flows, query, language]);

  return (
    <dialog ref={dialogRef} className="add-chart" aria-labelledby={titleId} onClose={onClose}>
      <div className="add-chart__header">
        <h2 id={titleId}>{t("dashboard.add.title")}</h2>
        <Button variant="ghost" onClick={onClose}>
          {t("dashboard.add.close")}
        </Button>
      </div>
      <div className="field">
        <label className="field__label" htmlFor={searchId}>
          {t("dashboard.add.search")}
        </label>
        <input
          id={searchId}
          className="field__input"
          type="search"
          value={query}
          autoComplete="off"
          onChange={(event) => setQuery(event.target.value)}
        />
      </div>
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
      <div className="add-chart__list">
        {groups.length === 0 ? (
          <p className="empty-state" role="status">
            {t("dashboard.add.nothing_found")}
          </p>
        ) : (
          groups.map(({ category, items }) => (
            <section key={category.id} className="add-chart__group">
              <h3>{pick(category.title, language)}</h3>
              <ul>
                {items.map((item) => {
                  const isPresent = present.has(item.id);
                  const title = pick(item.title, language);
                  return (
                    <li key={item.id} className="add-chart__item">
                      <div>
                        <span className="add-chart__name">{title}</span>
                        <span className="add-chart__description">{pick(item.description, language)}</span>
                        <span className={item.has_data ? "data-badge data-badge--yes" : "data-badge"}>
                          {item.has_data ? t("dashboard.add.has_data") : t("dashboard.add.no_data")}
                        </span>
                      </div>
                      {isPresent ? (
                        <span className="muted">{t("dashboard.add.already")}</span>
                      ) : (
                        <Button
                          variant="secondary"
                          isBusy={busyItem === item.id}
                          disabled={busyItem !== null}
                          aria-label={t("dashboard.add.add_named", { title })}
                          onClick={() => onAdd(item.id)}
                        >
                          {t("dashboard.add.add")}
                        </Button>
                      )}
                    </li>
                  );
                })}
              </ul>
            </section>
          ))
        )}
      </div>
    </dialog>
  );
}
