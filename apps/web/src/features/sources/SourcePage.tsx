import { ConnectorProviderSchema, type Locale, type SourceDetail, type SourceMethod } from "@tonus/contract";
import type { ReactNode } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { matchRoute } from "../../app/routes.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { usePageSubject } from "../../shared/ui/page-subject.ts";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { CloudConnection } from "../connectors/CloudConnection.tsx";
import { ImportPanel } from "./ImportPanel.tsx";
import { SourceLogo, SourceStateBadge, useSourceName } from "./SourceBits.tsx";
import { listPath, sourcePath } from "./source-paths.ts";
import { useSource } from "./sources-api.ts";
import "./sources.css";

/** /data-sources/{sourceSlug}: how to bring one source's data in, step by step, and its latest import. */
export default function SourcePage() {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const slug = matchRoute(pathname)?.params.sourceSlug ?? "";
  const source = useSource(slug);
  const nameOf = useSourceName();
  usePageSubject(source.data && nameOf(source.data));

  const back = (
    <p>
      <Link to={listPath(pathname)}>{t("sources.back_to_list")}</Link>
    </p>
  );
  if (source.isPending) return <LoadingState />;
  if (source.isError)
    return (
      <>
        {back}
        <Alert status="error">
          {source.error && "status" in source.error && source.error.status === 404
            ? t("sources.not_found")
            : t("sources.load_failed")}
        </Alert>
      </>
    );
  return (
    <div className="sources">
      {back}
      <SourceHeader source={source.data} />
      {source.data.methods.map((method) => (
        <MethodCard key={methodKey(method)} source={source.data} method={method} pathname={pathname} />
      ))}
    </div>
  );
}

function useLocale(): Locale {
  const { i18n } = useTranslation();
  return i18n.language === "ru" ? "ru" : "en";
}

function SourceHeader({ source }: { source: SourceDetail }) {
  const { t } = useTranslation();
  const nameOf = useSourceName();
  const locale = useLocale();
  return (
    <div className="source-header">
      <SourceLogo url={source.logo_url} size={56} />
      <div>
        <div className="source-header__title">
          <h2 className="source-header__name">{nameOf(source)}</h2>
          <SourceStateBadge source={source} />
        </div>
        <p>{source.description[locale]}</p>
        <p className="muted">
          {t("sources.data_types_label")}:{" "}
          {source.data_types.map((d) => t(`sources.data_types.${d}`)).join(", ")}
        </p>
      </div>
    </div>
  );
}

function MethodCard({
  source,
  method,
  pathname,
}: {
  source: SourceDetail;
  method: SourceMethod;
  pathname: string;
}) {
  const { t } = useTranslation();
  const locale = useLocale();
  // A cloud's panel is its own card, titled with the account it connects ("Oura account").
  if (method.kind === "cloud")
    return (
      <CloudMethod
        provider={method.provider}
        hasFileRoute={source.methods.some((m) => m.kind === "file")}
        steps={method.available ? <Steps steps={method.steps[locale]} /> : null}
      />
    );
  const title =
    method.kind === "file"
      ? t(`sources.methods.file_${method.importer === "apple_health" ? "apple" : "any"}`)
      : t(`sources.methods.${method.kind}`);
  return (
    <Card title={title} className="method-card">
      {method.kind === "mobile_app" && (
        <Alert status="info">{t(`sources.mobile_app_${method.platform}`)}</Alert>
      )}
      <Steps steps={method.steps[locale]} />
      {method.kind === "aggregator" && (
        <p>
          <Link to={sourcePath(pathname, method.via)}>
            {t("sources.open_via", { name: viaName(method.via) })}
          </Link>
        </p>
      )}
      {method.kind === "bluetooth" && (
        <p>
          <Link to="/measure">{t("sources.open_measure")}</Link>
        </p>
      )}
      {method.kind === "file" && <ImportPanel source={source} importer={method.importer} />}
    </Card>
  );
}

/** A method's steps, in order. */
function Steps({ steps }: { steps: readonly string[] }) {
  return (
    <ol className="method-card__steps">
      {steps.map((step) => (
        <li key={step}>{step}</li>
      ))}
    </ol>
  );
}

/** The connector's own panel (connect, sync, report, disconnect), or the plain "not here" note. */
function CloudMethod({
  provider,
  hasFileRoute,
  steps,
}: {
  provider: string;
  hasFileRoute: boolean;
  steps: ReactNode;
}) {
  const parsed = ConnectorProviderSchema.safeParse(provider);
  return parsed.success ? (
    <CloudConnection
      provider={parsed.data}
      hasFileRoute={hasFileRoute}
      steps={steps}
      cardClassName="method-card"
    />
  ) : null;
}

function methodKey(m: SourceMethod): string {
  if (m.kind === "file") return `file-${m.importer}`;
  if (m.kind === "aggregator") return `via-${m.via}`;
  if (m.kind === "cloud") return `cloud-${m.provider}`;
  if (m.kind === "mobile_app") return `app-${m.platform}`;
  return m.kind;
}

/** Aggregators are other catalogue entries; their names are brand names, the same in every language. */
function viaName(slug: string): string {
  return slug === "apple-health" ? "Apple Health" : slug;
}
