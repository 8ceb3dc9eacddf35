import type { Connection, Connector } from "@tonus/contract";
import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { isSyncBusy, useDisconnect, useRefreshSources, useSyncNow } from "./connectors-api.ts";
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
  /** True from the commit that removed the panel's focused control until the focus has been moved. */
  focusMoves: () => boolean;
};

/** A connected provider: since when, the last sync and its report, sync now, errors, disconnect. */
export function ConnectionDetails({
  connector,
  connection,
  canSync,
  reconnect,
  startFailed,
  onFlash,
  focusMoves,
}: Props) {
  const { t, i18n } = useTranslation();
  const sync = useSyncNow(connector.provider);
  const disconnect = useDisconnect(connector.provider);
  const refreshSources = useRefreshSources();
  const [isConfirming, setIsConfirming] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const disconnectRef = useRef<HTMLButtonElement>(null);
  const statusId = useId();
  const name = connector.name;
  const when = (iso: string) => formatMoment(iso, i18n.language);
  const report = connection.last_sync_report;
  const needsReconnect = connection.status === "reconnect_needed";
  const isBusy = isSyncBusy(connector) || sync.isPending;
  const paused = connection.sync_state === "waiting";

  // A sync this page watched has ended: the status line says so (a screen reader hears it), and the
  // entry's and the catalogue's badges catch up (the sync may have found the token refused).
  // A pause counts: a sync that resumes and ends between two looks is seen going from waiting to idle.
  const active = isBusy || paused;
  const wasActive = useRef(active);
  const [finished, setFinished] = useState(false);
  useEffect(() => {
    if (wasActive.current && !active) {
      setFinished(true);
      refreshSources();
      // "Connected, bringing in your data now" has come true or been overtaken: the status line says which.
      onFlash(null);
    }
    if (active) setFinished(false);
    wasActive.current = active;
  }, [active, refreshSources, onFlash]);
  // A sync that ended with an error says so in its alert; "finished" would read as success.
  const succeeded = !needsReconnect && !connection.last_error;

  // The error a sync ended with. When it replaces the focused Sync now (by Connect again), the panel
  // hands it the focus: it is then read by the focus alone, not also as a live region (decided before
  // the focus moves, and before paint).
  const problem = needsReconnect
    ? canSync && "connectors.errors.reconnect_needed"
    : connection.last_error && `connectors.errors.${connection.last_error.code}`;
  const [saidByFocus, setSaidByFocus] = useState(false);
  useLayoutEffect(() => {
    if (problem) setSaidByFocus(focusMoves());
  }, [problem, focusMoves]);

  // Keyboard users land on Cancel, the harmless choice: Enter twice does not disconnect.
  useEffect(() => {
    if (isConfirming) cancelRef.current?.focus();
  }, [isConfirming]);
  const stopConfirming = () => {
    setIsConfirming(false);
    // Back to the button that opened the question, once it is drawn again.
    requestAnimationFrame(() => disconnectRef.current?.focus());
  };

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
      {problem && (
        <div data-autofocus tabIndex={-1}>
          <Alert status="error" announced={!saidByFocus}>
            {t(problem, { name })}
          </Alert>
        </div>
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
          {report.skipped > 0 && <p className="muted">{t("connectors.report.skipped_hint")}</p>}
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
      <p role="status" className="muted" id={statusId}>
        {connection.sync_state === "queued" && t("connectors.state.queued")}
        {connection.sync_state === "running" && t("connectors.state.running")}
        {paused && connection.retry_at && t("connectors.state.waiting", { time: when(connection.retry_at) })}
        {connection.sync_state === "idle" &&
          finished &&
          succeeded &&
          connection.last_sync_at &&
          t("connectors.state.done", { time: when(connection.last_sync_at) })}
      </p>
      {startFailed}
      {(sync.isError || disconnect.isError) && <Alert status="error">{t("connectors.action_failed")}</Alert>}
      {isConfirming ? (
        <fieldset
          className="cloud-connection__confirm"
          onKeyDown={(e) => {
            if (e.key === "Escape" && !disconnect.isPending) stopConfirming();
          }}
        >
          <legend>{t("connectors.confirm_title", { name })}</legend>
          <p>{t("connectors.confirm_text", { name })}</p>
          <div className="actions">
            <Button variant="danger" isBusy={disconnect.isPending} onClick={confirmDisconnect}>
              {t("connectors.confirm_yes", { name })}
            </Button>
            <Button
              ref={cancelRef}
              variant="secondary"
              onClick={stopConfirming}
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
            // During a pause the status line says when the sync resumes; pressing would change nothing.
            <Button
              isBusy={isBusy}
              keepsFocusWhenBusy
              aria-disabled={paused || undefined}
              aria-describedby={paused ? statusId : undefined}
              onClick={() => {
                onFlash(null);
                sync.mutate();
              }}
            >
              {t("connectors.sync_now")}
            </Button>
          )}
          <Button ref={disconnectRef} variant="secondary" onClick={() => setIsConfirming(true)}>
            {t("connectors.disconnect")}
          </Button>
        </div>
      )}
    </div>
  );
}
