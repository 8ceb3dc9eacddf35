import type { Connector, ConnectorProvider } from "@tonus/contract";
import { type ReactNode, useEffect, useId, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useSearchParams } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { focusIsLost, useFocusStaysInside } from "../../shared/ui/focus.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { ConnectionDetails } from "./ConnectionDetails.tsx";
import { leavePage, useConnector, useStartConnect } from "./connectors-api.ts";
import { formatDay, isRetired, metricList } from "./connectors-format.ts";
import "./connectors.css";

/** A message on the panel; `landing` when it is the provider's answer the page came back with. */
type Flash = { status: "success" | "error" | "info"; key: string; landing?: boolean };

/** The result flags the OAuth callback puts on the page it lands on (`?connect=…&provider=…&reason=…`). */
function useConnectResult(provider: ConnectorProvider): [Flash | null, (f: Flash | null) => void] {
  const [params, setParams] = useSearchParams();
  const [flash, setFlash] = useState<Flash | null>(null);
  useEffect(() => {
    const outcome = params.get("connect");
    if (!outcome || params.get("provider") !== provider) return;
    const reason = params.get("reason");
    if (outcome === "ok") setFlash({ status: "success", key: "connectors.result.ok", landing: true });
    else
      setFlash({
        status: "error",
        key: `connectors.result.${reason === "denied" || reason === "expired" ? reason : "failed"}`,
        landing: true,
      });
    // The flags are read once; a reload must not show the message again.
    const next = new URLSearchParams(params);
    for (const key of ["connect", "provider", "reason"]) next.delete(key);
    setParams(next, { replace: true });
  }, [params, provider, setParams]);
  return [flash, setFlash];
}

/**
 * One cloud connector on a data-source page: whether this installation can connect the provider, and
 * the person's connection — connect, connected since, last sync and its report, sync now with its
 * progress, the last error, disconnect with a confirmation.
 */
export function CloudConnection({
  provider,
  hasFileRoute = false,
  steps = null,
  cardClassName,
}: {
  provider: ConnectorProvider;
  /** The entry's page also offers an export file of this provider's data (its steps say how). */
  hasFileRoute?: boolean;
  /** How connecting goes, shown until the account is connected. */
  steps?: ReactNode;
  /** Set when the panel is a card of its page (with this class beside `card`): its heading is the card's title. */
  cardClassName?: string;
}) {
  const { t } = useTranslation();
  const headingId = useId();
  const connector = useConnector(provider);
  const [flash, setFlash] = useConnectResult(provider);
  const name = connector.data?.name ?? "";
  const flashRef = useRef<HTMLDivElement>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const connection = connector.data?.connection;
  // "Connected" no longer holds once a sync found the token refused or failed: the error says what now,
  // and the message does not come back when the error clears.
  const failed = connection?.status === "reconnect_needed" || Boolean(connection?.last_error);
  useEffect(() => {
    if (flash?.status === "success" && failed) setFlash(null);
  }, [flash, failed, setFlash]);

  // The provider's answer sits far down the page the browser came back to, and a disconnect's outcome
  // replaces the button that had the focus: the message is brought into view and takes the focus, once
  // (the connector is polled while it syncs; each answer must not pull the page back). One that takes
  // the focus is read by it, not also as a live region: decided before paint (the provider's answer
  // takes it once the connector has loaded, so it is a live region only if that fails).
  const placed = useRef<Flash | null>(null);
  const [focusedFlash, setFocusedFlash] = useState<Flash | null>(null);
  const loaded = connector.data !== undefined;
  useLayoutEffect(() => {
    const node = flashRef.current;
    if (!flash || !node || !loaded || placed.current === flash) return;
    placed.current = flash;
    if (flash.landing) node.scrollIntoView({ block: "center" });
    if (flash.landing || focusIsLost()) {
      node.focus();
      setFocusedFlash(flash);
    }
  }, [flash, loaded]);
  // After the message has had its chance to take the focus: when what had it goes (Sync now replaced by
  // Connect again), the error that says what happened, else the panel's heading.
  const focusMoves = useFocusStaysInside(sectionRef, pickAfterLoss);
  // A message that held the focus is cleared once the sync it spoke of has ended or failed, a commit
  // after the status or the error that says so was announced: the heading takes the focus, so that the
  // error is not read a second time.
  const hadFlash = useRef(flash);
  useLayoutEffect(() => {
    if (hadFlash.current && !flash && focusMoves()) headingRef.current?.focus();
    hadFlash.current = flash;
  }, [flash, focusMoves]);

  const isCard = cardClassName !== undefined;
  const Heading = isCard ? "h2" : "h3";
  return (
    <section
      ref={sectionRef}
      className={isCard ? `card cloud-connection ${cardClassName}` : "cloud-connection"}
      aria-labelledby={headingId}
    >
      <Heading id={headingId} ref={headingRef} className={isCard ? "card__title" : undefined} tabIndex={-1}>
        {name ? t("connectors.title", { name }) : t("connectors.title_generic")}
      </Heading>
      {flash && (
        <div ref={flashRef} tabIndex={-1} className="cloud-connection__flash">
          <Alert
            status={flash.status}
            announced={focusedFlash !== flash && !(flash.landing && !connector.isError)}
          >
            {t(flash.key, { name })}
          </Alert>
        </div>
      )}
      {connector.isPending && <LoadingState />}
      {connector.isError && <Alert status="error">{t("connectors.load_failed")}</Alert>}
      {connector.data?.configured && !connection && steps}
      {connector.data && (
        <ConnectorBody
          connector={connector.data}
          hasFileRoute={hasFileRoute}
          onFlash={setFlash}
          focusMoves={focusMoves}
        />
      )}
    </section>
  );
}

const pickAfterLoss = (section: HTMLElement) =>
  section.querySelector<HTMLElement>("[data-autofocus]") ?? section.querySelector<HTMLElement>("h2, h3");

function ConnectorBody({
  connector,
  hasFileRoute,
  onFlash,
  focusMoves,
}: {
  connector: Connector;
  hasFileRoute: boolean;
  onFlash: (f: Flash | null) => void;
  focusMoves: () => boolean;
}) {
  const { t, i18n } = useTranslation();
  const { pathname } = useLocation();
  const start = useStartConnect(connector.provider);
  const name = connector.name;

  const connect = () => {
    onFlash(null);
    start.mutate(pathname, { onSuccess: (answer) => leavePage.to(answer.authorization_url) });
  };

  const exportFile = connector.has_export_file && hasFileRoute && (
    <p>{t("connectors.use_export", { name })}</p>
  );
  if (connector.retired_on && isRetired(connector.retired_on)) {
    return (
      <>
        <p>{t("connectors.retired", { name, date: formatDay(connector.retired_on, i18n.language) })}</p>
        {exportFile}
        {connector.connection && (
          <ConnectionDetails
            connector={connector}
            connection={connector.connection}
            canSync={false}
            reconnect={null}
            startFailed={null}
            onFlash={onFlash}
            focusMoves={focusMoves}
          />
        )}
      </>
    );
  }
  if (!connector.configured) {
    return (
      <>
        <p>{t("connectors.not_configured", { name })}</p>
        {exportFile}
      </>
    );
  }
  const connectButton = (
    <Button isBusy={start.isPending} onClick={connect}>
      {connector.connection ? t("connectors.reconnect", { name }) : t("connectors.connect", { name })}
    </Button>
  );
  const startFailed = start.isError && <Alert status="error">{t("connectors.action_failed")}</Alert>;
  if (!connector.connection) {
    return (
      <>
        <p>{t("connectors.pitch", { name, metrics: metricList(connector.metrics, t, i18n.language) })}</p>
        {connector.blood_pressure && <p>{t("connectors.pitch_bp")}</p>}
        {startFailed}
        <div className="actions">{connectButton}</div>
      </>
    );
  }
  return (
    <ConnectionDetails
      connector={connector}
      connection={connector.connection}
      canSync
      reconnect={connector.connection.status === "reconnect_needed" ? connectButton : null}
      startFailed={startFailed || null}
      onFlash={onFlash}
      focusMoves={focusMoves}
    />
  );
}
