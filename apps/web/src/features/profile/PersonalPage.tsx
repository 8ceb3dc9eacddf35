import type { Profile } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { type Draft, toDraft, toUpdate } from "./personal-draft.ts";
import { listTimeZones } from "./time-zones.ts";
import { useProfile, useUpdateProfile } from "./use-profile.ts";

export default function PersonalPage() {
  const { t } = useTranslation();
  const profile = useProfile();
  if (profile.isPending) return <LoadingState />;
  if (profile.isError) return <Alert status="error">{t("profile.load_failed")}</Alert>;
  return <PersonalForm key={profile.dataUpdatedAt} profile={profile.data} />;
}

function PersonalForm({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const update = useUpdateProfile();
  const [draft, setDraft] = useState<Draft>(() => toDraft(profile));
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) =>
    setDraft((old) => ({ ...old, [key]: value }));
  const isMetric = profile.units === "metric";
  const today = new Date().toISOString().slice(0, 10);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const changes = toUpdate(draft, profile);
    if (Object.keys(changes).length > 0) update.mutate(changes);
  };

  return (
    <Card>
      <form onSubmit={onSubmit} aria-busy={update.isPending}>
        <TextField
          label={t("profile.fields.name")}
          autoComplete="name"
          maxLength={100}
          value={draft.name}
          onChange={(e) => set("name", e.target.value)}
        />
        <TextField
          label={t("profile.fields.date_of_birth")}
          type="date"
          min="1900-01-01"
          max={today}
          value={draft.dateOfBirth}
          onChange={(e) => set("dateOfBirth", e.target.value)}
        />
        <fieldset>
          <legend>{t("profile.fields.sex")}</legend>
          {(["male", "female"] as const).map((sex) => (
            <label key={sex} className="choice">
              <input
                type="radio"
                name="sex"
                value={sex}
                checked={draft.gender === sex}
                onChange={() => set("gender", sex)}
              />
              {t(`profile.sex.${sex}`)}
            </label>
          ))}
        </fieldset>
        {isMetric ? (
          <TextField
            label={t("profile.fields.height_cm")}
            type="number"
            inputMode="decimal"
            min={50}
            max={260}
            step="0.1"
            value={draft.heightCm}
            onChange={(e) => set("heightCm", e.target.value)}
          />
        ) : (
          <div className="field-row">
            <TextField
              label={t("profile.fields.height_ft")}
              type="number"
              inputMode="numeric"
              min={1}
              max={8}
              step="1"
              value={draft.heightFt}
              onChange={(e) => set("heightFt", e.target.value)}
            />
            <TextField
              label={t("profile.fields.height_in")}
              type="number"
              inputMode="decimal"
              min={0}
              max={11.9}
              step="0.1"
              value={draft.heightIn}
              onChange={(e) => set("heightIn", e.target.value)}
            />
          </div>
        )}
        <TextField
          label={t(isMetric ? "profile.fields.weight_kg" : "profile.fields.weight_lb")}
          type="number"
          inputMode="decimal"
          min={isMetric ? 20 : 44}
          max={isMetric ? 400 : 881}
          step="0.1"
          value={draft.weight}
          onChange={(e) => set("weight", e.target.value)}
        />
        <Select
          label={t("profile.fields.newsletter_language")}
          value={draft.newsletterLanguage}
          onChange={(e) => set("newsletterLanguage", e.target.value === "ru" ? "ru" : "en")}
          options={[
            { value: "en", label: t("language.en") },
            { value: "ru", label: t("language.ru") },
          ]}
        />
        <Select
          label={t("profile.fields.timezone")}
          value={draft.timezone}
          onChange={(e) => set("timezone", e.target.value)}
          options={listTimeZones(draft.timezone).map((zone) => ({
            value: zone,
            label: zone.replaceAll("_", " "),
          }))}
        />
        <Button type="submit" isBusy={update.isPending}>
          {t("profile.save")}
        </Button>
      </form>
    </Card>
  );
}
