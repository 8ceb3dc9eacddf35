import { type NotificationSettings, type Profile, WEEKLY_REPORT_LOCAL_TIME } from "@tonus/contract";
import { type FormEvent, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { useProfile } from "../profile/use-profile.ts";
import "./notifications.css";
import { useNotificationSettings, useSaveNotificationSettings } from "./notifications-api.ts";
import {
  changesOf,
  type Draft,
  findDraftProblem,
  formatLocalTime,
  orderedWeekdays,
  toggleDay,
  weekdayName,
} from "./settings-draft.ts";

/** Spec §2 "notification settings": the weekly report, measurement reminders and product news. */
export default function NotificationsPage() {
  const { t } = useTranslation();
  const settings = useNotificationSettings();
  const profile = useProfile();
  if (settings.isPending || profile.isPending) return <LoadingState />;
  if (settings.isError || profile.isError)
    return <Alert status="error">{t("notifications.load_failed")}</Alert>;
  return <NotificationsForm key={settings.dataUpdatedAt} saved={settings.data} profile={profile.data} />;
}

function NotificationsForm({ saved, profile }: { saved: NotificationSettings; profile: Profile }) {
  const { t, i18n } = useTranslation();
  const save = useSaveNotificationSettings();
  const [draft, setDraft] = useState<Draft>(saved);
  const [problem, setProblem] = useState<string | null>(null);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => {
    setProblem(null);
    setDraft((old) => ({ ...old, [key]: value }));
  };
  const language = i18n.language;
  const newsLanguage = t(`language.${profile.newsletter_language}`);
  const daysLegendId = useId();

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const found = findDraftProblem(draft);
    setProblem(found);
    if (found) return;
    const changes = changesOf(draft, saved);
    if (Object.keys(changes).length === 0) {
      showAlert(t("notifications.saved"));
      return;
    }
    save.mutate(changes, { onSuccess: () => showAlert(t("notifications.saved")) });
  };

  return (
    <form onSubmit={onSubmit} aria-busy={save.isPending} noValidate>
      <p>
        {t("notifications.intro", {
          email: profile.email,
          language: newsLanguage,
          timezone: profile.timezone.replaceAll("_", " "),
        })}{" "}
        <Link to="/user/personal">{t("notifications.personal_link")}</Link>
      </p>

      <Card title={t("notifications.weekly.legend")}>
        <label className="choice">
          <input
            type="checkbox"
            checked={draft.weekly_report}
            onChange={(e) => set("weekly_report", e.target.checked)}
          />
          {t("notifications.weekly.enable")}
        </label>
        <p className="muted">{t("notifications.weekly.explain")}</p>
        <Select
          label={t("notifications.weekly.day")}
          value={String(draft.weekly_report_day)}
          disabled={!draft.weekly_report}
          onChange={(e) => set("weekly_report_day", Number(e.target.value))}
          options={orderedWeekdays(language).map((day) => ({
            value: String(day),
            label: weekdayName(day, language),
          }))}
        />
        <p className="muted">
          {t("notifications.weekly.time_note", { time: formatLocalTime(WEEKLY_REPORT_LOCAL_TIME, language) })}
        </p>
      </Card>

      <Card title={t("notifications.reminders.legend")}>
        <label className="choice">
          <input
            type="checkbox"
            checked={draft.reminders}
            onChange={(e) => set("reminders", e.target.checked)}
          />
          {t("notifications.reminders.enable")}
        </label>
        <p className="muted">{t("notifications.reminders.explain")}</p>
        <TextField
          label={t("notifications.reminders.time")}
          type="time"
          required={draft.reminders}
          disabled={!draft.reminders}
          value={draft.reminder_time}
          error={problem === "notifications.reminders.bad_time" ? t(problem) : null}
          onChange={(e) => set("reminder_time", e.target.value)}
        />
        <fieldset
          className="weekday-choices"
          disabled={!draft.reminders}
          aria-describedby={
            problem === "notifications.reminders.no_days" ? `${daysLegendId}-error` : undefined
          }
        >
          <legend id={daysLegendId}>{t("notifications.reminders.days")}</legend>
          {orderedWeekdays(language).map((day) => (
            <label key={day} className="choice">
              <input
                type="checkbox"
                checked={draft.reminder_days.includes(day)}
                onChange={() => set("reminder_days", toggleDay(draft.reminder_days, day))}
              />
              {weekdayName(day, language)}
            </label>
          ))}
          {problem === "notifications.reminders.no_days" && (
            <div id={`${daysLegendId}-error`} className="field__error" role="alert">
              {t(problem)}
            </div>
          )}
        </fieldset>
      </Card>

      <Card title={t("notifications.news.legend")}>
        <label className="choice">
          <input
            type="checkbox"
            checked={draft.product_news}
            onChange={(e) => set("product_news", e.target.checked)}
          />
          {t("notifications.news.enable")}
        </label>
        <p className="muted">{t("notifications.news.explain", { language: newsLanguage })}</p>
      </Card>

      <p className="muted">{t("notifications.unsubscribe_note")}</p>
      {save.isError && <Alert status="error">{t("notifications.save_failed")}</Alert>}
      <Button type="submit" isBusy={save.isPending}>
        {t("notifications.save")}
      </Button>
    </form>
  );
}
