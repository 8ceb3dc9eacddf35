import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { ALERT_AUTO_CLOSE_MS, closeAlert, useCurrentAlert } from "./alert-store.ts";

/** The spec's transient alert: an icon and a message, closed by a click or after 3 s. */
export function TransientAlert() {
  const { t } = useTranslation();
  const alert = useCurrentAlert();

  useEffect(() => {
    if (!alert) return;
    const timer = window.setTimeout(() => closeAlert(alert.id), ALERT_AUTO_CLOSE_MS);
    return () => window.clearTimeout(timer);
  }, [alert]);

  return (
    <div className="toast-region" role="status" aria-live="polite">
      {alert && (
        <button
          type="button"
          className={`toast toast--${alert.status}`}
          onClick={() => closeAlert(alert.id)}
          aria-label={`${alert.message}. ${t("common.close")}`}
        >
          <span className="toast__icon" aria-hidden="true">
            {alert.status === "success" ? "✓" : "!"}
          </span>
          <span>{alert.message}</span>
        </button>
      )}
    </div>
  );
}
