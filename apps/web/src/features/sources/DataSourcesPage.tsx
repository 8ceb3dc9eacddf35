import type { SourceCategory, SourceSummary } from "@tonus/contract";
import { useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { SourceLogo, SourceStateBadge, useSourceName } from "./SourceBits.tsx";
import { sourcePath } from "./source-paths.ts";
import { useSources } from "./sources-api.ts";
import "./sources.css";

/** Case- and accent-insensitive match of the query against the name and the translated data types. */
export function matchesQuery(
  source: SourceSummary,
  query: string,
  typeLabel: (t: string) => string,
  name: string = source.name,
): boolean {
  const q = fold(query.trim());
  if (q === "") return true;
  return [name, source.name, ...source.data_types.map(typeLabel)].some((text) => fold(text).includes(q));
}

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").toLocaleLowerCase();

/**
 * The data types a card names (four, or all five: "and 1 more" would take the room of the fifth):
 * those the query matched first, so a search for "sleep" shows why each card was found, then the rest
 * in the catalogue's order.
 */
export function typesToShow(
  types: readonly string[],
  query: string,
  typeLabel: (t: string) => string,
): { shown: string[]; more: number } {
  const q = fold(query.trim());
  const hit = (t: string) => q !== "" && fold(typeLabel(t)).includes(q);
  const ordered = [...types.filter(hit), ...types.filter((t) => !hit(t))];
  const room = ordered.length === 5 ? 5 : 4;
  return { shown: ordered.slice(0, room), more: Math.max(0, ordered.length - room) };
}

/** The catalogue's entry for any other spreadsheet: where a search that finds nothing leads. */
const ANY_CSV_SLUG = "csv-file";

/** /data-sources: every gadget and app Tonus can take data from, by category, with search. */
export default function DataSourcesPage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const sources = useSources();
  const [query, setQuery] = useState("");
  const searchId = useId();
  const searchRef = useRef<HTMLInputElement>(null);
  const typeLabel = (type: string) => t(`sources.data_types.${type}`);
  const nameOf = useSourceName();

  const list = sources.data?.results ?? [];
  const shown = list.filter((s) => matchesQuery(s, query, typeLabel, nameOf(s)));
  const groups = (sources.data?.categories ?? [])
    .map((category) => ({ category, items: shown.filter((s) => s.categories[0] === category) }))
    .filter((g) => g.items.length > 0);

  if (sources.isPending) return <LoadingState />;
  if (sources.isError) return <Alert status="error">{t("sources.load_failed")}</Alert>;
  const total = groups.reduce((n, g) => n + g.items.length, 0);

  return (
    <div className="sources">
      <p className="sources__intro">{t("sources.intro", { count: sources.data.results.length })}</p>
      <div className="field sources__search">
        <label className="field__label" htmlFor={searchId}>
          {t("sources.search_label")}
        </label>
        <input
          ref={searchRef}
          id={searchId}
          className="field__input"
          type="search"
          value={query}
          placeholder={t("sources.search_placeholder")}
          onChange={(e) => setQuery(e.target.value)}
        />
      </div>
      <p className="sources__count" aria-live="polite">
        {t("sources.found", { count: total })}
      </p>
      {total === 0 ? (
        <div className="sources__empty">
          <p>{t("sources.no_match", { query: query.trim() })}</p>
          <p>
            <Link to={sourcePath(pathname, ANY_CSV_SLUG)}>{t("sources.no_match_csv")}</Link>
          </p>
          <Button
            variant="secondary"
            onClick={() => {
              setQuery("");
              // The button goes with the empty state: the search field takes the focus.
              searchRef.current?.focus();
            }}
          >
            {t("sources.clear_search")}
          </Button>
        </div>
      ) : (
        groups.length > 1 && (
          <nav className="sources__jump" aria-label={t("sources.jump_label")}>
            <ul>
              {groups.map(({ category, items }) => (
                <li key={category}>
                  <a href={`#${categoryAnchor(category)}`}>
                    {t(`sources.categories.${category}`)} <span className="muted">{items.length}</span>
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )
      )}
      {groups.map(({ category, items }) => (
        <CategorySection key={category} category={category} items={items} pathname={pathname} query={query} />
      ))}
    </div>
  );
}

function typesLine(
  types: readonly string[],
  query: string,
  typeLabel: (t: string) => string,
  moreText: (count: number) => string,
): string {
  const { shown, more } = typesToShow(types, query, typeLabel);
  const line = shown.map(typeLabel).join(", ");
  return more > 0 ? `${line} ${moreText(more)}` : line;
}

const categoryAnchor = (category: SourceCategory) => `category-${category}`;

function CategorySection({
  category,
  items,
  pathname,
  query,
}: {
  category: SourceCategory;
  items: SourceSummary[];
  pathname: string;
  query: string;
}) {
  const { t } = useTranslation();
  const nameOf = useSourceName();
  const headingId = useId();
  const typeLabel = (type: string) => t(`sources.data_types.${type}`);
  return (
    <section className="sources__category" id={categoryAnchor(category)} aria-labelledby={headingId}>
      <h2 id={headingId}>{t(`sources.categories.${category}`)}</h2>
      <ul className="sources__grid">
        {items.map((s) => (
          <li key={s.slug}>
            <Link className="source-card" to={sourcePath(pathname, s.slug)}>
              <SourceLogo url={s.logo_url} />
              <span className="source-card__body">
                <span className="source-card__name">{nameOf(s)}</span>
                <span className="source-card__types">
                  {typesLine(s.data_types, query, typeLabel, (count) => t("sources.more_types", { count }))}
                </span>
                <SourceStateBadge source={s} />
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
