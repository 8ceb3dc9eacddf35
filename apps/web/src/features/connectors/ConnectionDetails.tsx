import type { Connection, Connector } from "@tonus/contract";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { isSyncBusy, useDisconnect, useSyncNow } from "./connectors-api.ts";
import { formatMoment, reasonKey } from "./connectors-format.ts";

type Props = {
  connector: Connector;
  connection: Connection;
  /** False when the provider's API is off: only disconnecting is left. */
  canSync: boolean;
  /** The "connect again" button, when the provider refused the token. */
  reconnect: ReactNode;
  startFailed: ReactNode;
  onFlash: (flash: { status: "success" | "info"; key: string } | null) => void;
};

/** A connected provider: since when, the last sync and its report, sync now, errors, disconnect. */
export function ConnectionDetails({
  connector,
  connection,
  canSync,
  reconnect,
  startFailed,
  onFlash,
}: Props) {
  const { t, i18n } = useTranslation();
  const sync = useSyncNow(connector.provider);
  const disconnect = useDisconnect(connector.provider);
  const [isConfirming, setIsConfirming] = useState(false);
  const confirmRef = useRef<HTMLFieldSetElement>(null);
  const name = connector.name;
  const when = (iso: string) => formatMoment(iso, i18n.language);
  const report = connection.last_sync_report;
  const needsReconnect = connection.status === "reconnect_needed";
  const isBusy = isSyncBusy(connector) || sync.isPending;

  useEffect(() => {
    // Keyboard users land on the confirming button; Cancel is next to it.
    if (isConfirming) confirmRef.current?.querySelector("button")?.focus();
  }, [isConfirming]);

  // The flash belongs to the panel, which outlives this component: once the connection is gone from
  // the refetched connector, this one unmounts, and `mutate`'s own callbacks would no longer run.
  const confirmDisconnect = () =>
    disconnect.mutateAsync().then(
      (result) => {
        setIsConfirming(false);
        onFlash(
          result.revoked
            ? { status: "success", key: "connectors.disconnected" }
            : { status: "info", key: "connectors.disconnected_unconfirmed" },
        );
      },
      () => {}, // shown by `disconnect.isError`
    );

  return (
    <div className="stack">
      {canSync && needsReconnect && (
        <Alert status="error">{t("connectors.errors.reconnect_needed", { name })}</Alert>
      )}
      {!needsReconnect && connection.last_error && (
        <Alert status="error">{t(`connectors.errors.${connection.last_error.code}`, { name })}</Alert>
      )}
      <dl className="cloud-connection__facts">
        <dt>{t("connectors.connected_since")}</dt>
        <dd>{when(connection.connected_at)}</dd>
        <dt>{t("connectors.last_sync")}</dt>
        <dd>{connection.last_sync_at ? when(connection.last_sync_at) : t("connectors.never_synced")}</dd>
      </dl>
      {report && (
        <section className="cloud-connection__report" aria-label={t("connectors.report.title")}>
          <p className="muted">{t("connectors.report.title")}</p>
          <dl className="cloud-connection__facts">
            <dt>{t("connectors.report.read")}</dt>
            <dd>{report.read.toLocaleString(i18n.language)}</dd>
            <dt>{t("connectors.report.imported")}</dt>
            <dd>{report.imported.toLocaleString(i18n.language)}</dd>
            <dt>{t("connectors.report.skipped")}</dt>
            <dd>{report.skipped.toLocaleString(i18n.language)}</dd>
            <dt>{t("connectors.report.rejected")}</dt>
            <dd>{report.rejected.toLocaleString(i18n.language)}</dd>
          </dl>
          {report.rejected > 0 && (
            <ul className="cloud-connection__reasons">
              {Object.entries(report.rejected_reasons).map(([reason, count]) => (
                <li key={reason}>
                  {t("connectors.report.reason_line", { reason: t(reasonKey(reason)), count })}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <p role="status" className="muted">
        {connection.sync_state === "queued" && t("connectors.state.queued")}
        {connection.sync_state === "running" && t("connectors.state.running")}
        {connection.sync_state === "waiting" &&
          connection.retry_at &&
          t("connectors.state.waiting", { time: when(connection.retry_at) })}
      </p>
      {startFailed}
      {(sync.isError || disconnect.isError) && <Alert status="error">{t("connectors.action_failed")}</Alert>}
      {isConfirming ? (
        <fieldset className="cloud-connection__confirm" ref={confirmRef}>
          <legend>{t("connectors.confirm_title", { name })}</legend>
          <p>{t("connectors.confirm_text", { name })}</p>
          <div className="actions">
            <Button variant="danger" isBusy={disconnect.isPending} onClick={confirmDisconnect}>
              {t("connectors.confirm_yes", { name })}
            </Button>
            <Button
              variant="secondary"
              onClick={() => setIsConfirming(false)}
              disabled={disconnect.isPending}
            >
              {t("connectors.cancel")}
            </Button>
          </div>
        </fieldset>
      ) : (
        <div className="actions">
          {reconnect}
          {canSync && !needsReconnect && (
            <Button isBusy={isBusy} onClick={() => sync.mutate()}>
              {t("connectors.sync_now")}
            </Button>
          )}
          <Button variant="secondary" onClick={() => setIsConfirming(true)}>
            {t("connectors.disconnect")}
          </Button>
        </div>
      )}
    </div>
  );
}
