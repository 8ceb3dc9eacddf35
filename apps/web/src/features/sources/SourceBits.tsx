import type { SourceSummary } from "@tonus/contract";
import { useTranslation } from "react-i18next";

/** The entry's monogram; decorative, as the name is always beside it. */
export function SourceLogo({ url, size = 40 }: { url: string; size?: number }) {
  return <img className="source-logo" src={url} alt="" width={size} height={size} loading="lazy" />;
}

/** Where the person stands with this source: importing, imported, failed, or not available here. */
export function SourceStateBadge({ source }: { source: Pick<SourceSummary, "state" | "connectable"> }) {
  const { t } = useTranslation();
  if (source.state !== "none")
    return <span className={`badge badge--${source.state}`}>{t(`sources.state.${source.state}`)}</span>;
  if (!source.connectable) return <span className="badge badge--muted">{t("sources.state.app_only")}</span>;
  return null;
}

/** The entry's name as shown: brand names as they are; the plain-file entries in the reader's language. */
export function useSourceName(): (source: Pick<SourceSummary, "slug" | "name">) => string {
  const { t } = useTranslation();
  return (source) => t(`sources.names.${source.slug}`, { defaultValue: source.name });
}
