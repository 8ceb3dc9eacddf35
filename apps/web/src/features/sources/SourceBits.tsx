import type { SourceSummary } from "@tonus/contract";
import { useTranslation } from "react-i18next";

/** The entry's monogram; decorative, as the name is always beside it. */
export function SourceLogo({ url, size = 40 }: { url: string; size?: number }) {
  return <img className="source-logo" src={url} alt="" width={size} height={size} loading="lazy" />;
}

/**
 * Where the person stands with this source: its cloud account linked (or to authorise again), and the
 * latest file import (importing, imported, failed); else whether it can be connected here at all.
 */
export function SourceStateBadge({
  source,
}: {
  source: Pick<SourceSummary, "state" | "connectable" | "cloud" | "cloud_connectable">;
}) {
  const { t } = useTranslation();
  const badges = [];
  if (source.cloud !== "none")
    badges.push(
      <span key="cloud" className={`badge badge--${source.cloud === "connected" ? "connected" : "failed"}`}>
        {t(`sources.state.${source.cloud}`)}
      </span>,
    );
  // Which entries this installation can sync from the person's account, not only read files of.
  else if (source.cloud_connectable)
    badges.push(
      <span key="cloud" className="badge badge--muted">
        {t("sources.state.cloud_available")}
      </span>,
    );
  if (source.state !== "none")
    badges.push(
      <span key="file" className={`badge badge--${source.state}`}>
        {t(`sources.state.${source.state}`)}
      </span>,
    );
  if (badges.length === 0 && !source.connectable)
    badges.push(
      <span key="app" className="badge badge--muted">
        {t("sources.state.app_only")}
      </span>,
    );
  return badges.length > 0 ? <span className="badges">{badges}</span> : null;
}

/** The entry's name as shown: brand names as they are; the plain-file entries in the reader's language. */
export function useSourceName(): (source: Pick<SourceSummary, "slug" | "name">) => string {
  const { t } = useTranslation();
  return (source) => t(`sources.names.${source.slug}`, { defaultValue: source.name });
}
