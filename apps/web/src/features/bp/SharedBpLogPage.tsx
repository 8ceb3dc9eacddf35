import { useState } from "react";
import { useTranslation } from "react-i18next";
import { LinkViewerBanner } from "../../app/layout/Banners.tsx";
import { isLinkUnavailable, LinkUnavailable } from "../../shared/share/LinkUnavailable.tsx";
import { useShareToken } from "../../shared/share/useShareToken.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { BpAveragesSection } from "./BpAveragesSection.tsx";
import { PAGE_SIZE, useSharedLog } from "./bp-api.ts";
import { ReadingsTable } from "./ReadingsTable.tsx";
import "./bp.css";

/** /share-bp-log#tsh_…: a shared blood-pressure log, read-only, with the visitor banner; printable. */
export default function SharedBpLogPage() {
  const { t } = useTranslation();
  const token = useShareToken();
  const [limit, setLimit] = useState(PAGE_SIZE);
  const log = useSharedLog(token, limit);

  const banner = <LinkViewerBanner />;

  if (isLinkUnavailable(token, log.error)) {
    return (
      <>
        {banner}
        <LinkUnavailable />
      </>
    );
  }
  if (log.isPending) return <LoadingState />;
  if (log.isError) {
    return (
      <Alert status="error">
        <p>{t("bp.load_failed")}</p>
        <Button variant="secondary" onClick={() => void log.refetch()}>
          {t("common.retry")}
        </Button>
      </Alert>
    );
  }
  return (
    <div className="stack bp-page">
      {banner}
      <p className="muted">{t("bp.shared.intro")}</p>
      <p className="actions no-print">
        <Button variant="secondary" onClick={() => window.print()}>
          {t("bp.print")}
        </Button>
      </p>
      {token && <BpAveragesSection source={{ kind: "shared", token }} />}
      {log.data.results.length === 0 ? (
        <p className="empty-state">{t("bp.shared.empty")}</p>
      ) : (
        <>
          <ReadingsTable readings={log.data.results} />
          <p className="muted">{t("bp.count", { count: log.data.count })}</p>
          {log.data.count > log.data.results.length && (
            <Button variant="secondary" isBusy={log.isFetching} onClick={() => setLimit(limit + PAGE_SIZE)}>
              {t("bp.load_more")}
            </Button>
          )}
        </>
      )}
    </div>
  );
}
