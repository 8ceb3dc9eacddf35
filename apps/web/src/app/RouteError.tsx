import { useTranslation } from "react-i18next";
import { useRouteError } from "react-router";

/** The router's error boundary: a page that failed to render or load (for example a stale chunk). */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  console.error(error);
  return (
    <main id="main" className="main main--simple">
      <div className="simple-panel card" role="alert">
        <h1>{t("errors.crash.title")}</h1>
        <p>{t("errors.crash.text")}</p>
        <button type="button" className="btn btn--primary" onClick={() => window.location.reload()}>
          {t("errors.crash.reload")}
        </button>
      </div>
    </main>
  );
}
