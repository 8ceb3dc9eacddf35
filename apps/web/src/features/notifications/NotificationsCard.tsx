import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useNotificationSettings } from "./notifications-api.ts";
import { formatLocalTime, weekdayName } from "./settings-draft.ts";
import "./notifications.css";

/** The profile's "Notifications" card: what is switched on, and the way to the settings page. */
export function NotificationsCard() {
  const { t, i18n } = useTranslation();
  const settings = useNotificationSettings();
  const language = i18n.language;
  const s = settings.data;
  const lines = s
    ? [
        s.weekly_report &&
          t("notifications.summary.weekly_on", { day: weekdayName(s.weekly_report_day, language) }),
        s.reminders &&
          t("notifications.summary.reminders_on", { time: formatLocalTime(s.reminder_time, language) }),
        s.product_news && t("notifications.summary.news_on"),
      ].filter((line): line is string => typeof line === "string")
    : [];
  return (
    <Card title={t("notifications.summary.title")}>
      {settings.isPending && <LoadingState />}
      {settings.isError && <Alert status="error">{t("notifications.load_failed")}</Alert>}
      {s && lines.length === 0 && <p>{t("notifications.summary.all_off")}</p>}
      {lines.length > 0 && (
        <ul className="notifications-summary">
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
      <Link className="btn btn--secondary" to="/user/notifications">
        {t("notifications.summary.manage")}
      </Link>
    </Card>
  );
}
