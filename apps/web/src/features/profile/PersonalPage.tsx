import type { Locale, Profile, ProfileUpdate } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import {
  convertCmToFeetInches,
  convertFeetInchesToCm,
  convertKgToLb,
  convertLbToKg,
  roundTo,
} from "../../shared/format/units.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { listTimeZones } from "./time-zones.ts";
import { useProfile, useUpdateProfile } from "./use-profile.ts";

type Draft = {
  name: string;
  dateOfBirth: string;
  gender: "" | "male" | "female";
  heightCm: string;
  heightFt: string;
  heightIn: string;
  weight: string;
  newsletterLanguage: Locale;
  timezone: string;
};

function toDraft(profile: Profile): Draft {
  const feetInches = profile.height === null ? null : convertCmToFeetInches(profile.height);
  const weight =
    profile.weight === null
      ? ""
      : String(
          profile.units === "metric" ? roundTo(profile.weight, 1) : roundTo(convertKgToLb(profile.weight), 1),
        );
  return {
    name: profile.name,
    dateOfBirth: profile.date_of_birth ?? "",
    gender: profile.gender ?? "",
    heightCm: profile.height === null ? "" : String(roundTo(profile.height, 1)),
    heightFt: feetInches ? String(feetInches.feet) : "",
    heightIn: feetInches ? String(feetInches.inches) : "",
    weight,
    newsletterLanguage: profile.newsletter_language,
    timezone: profile.timezone,
  };
}

function parseNumber(text: string): number | null {
  const value = Number.parseFloat(text.replace(",", "."));
  return Number.isFinite(value) ? value : null;
}

/** Only what changed goes to the server, in SI units, so untouched values never drift through rounding. */
function toUpdate(draft: Draft, profile: Profile): ProfileUpdate {
  const initial = toDraft(profile);
  const update: ProfileUpdate = {};
  if (draft.name !== initial.name) update.name = draft.name.trim();
  if (draft.dateOfBirth !== initial.dateOfBirth) update.date_of_birth = draft.dateOfBirth || null;
  if (draft.gender !== initial.gender) update.gender = draft.gender || null;
  if (profile.units === "metric" && draft.heightCm !== initial.heightCm)
    update.height = parseNumber(draft.heightCm);
  if (
    profile.units === "imperial" &&
    (draft.heightFt !== initial.heightFt || draft.heightIn !== initial.heightIn)
  ) {
    const feet = parseNumber(draft.heightFt);
    const inches = parseNumber(draft.heightIn) ?? 0;
    update.height = feet === null ? null : roundTo(convertFeetInchesToCm({ feet, inches }), 2);
  }
  if (draft.weight !== initial.weight) {
    const value = parseNumber(draft.weight);
    update.weight =
      value === null ? null : roundTo(profile.units === "metric" ? value : convertLbToKg(value), 2);
  }
  if (draft.newsletterLanguage !== initial.newsletterLanguage)
    update.newsletter_language = draft.newsletterLanguage;
  if (draft.timezone !== initial.timezone) update.timezone = draft.timezone;
  return update;
}

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
          min={isMetric ? 20 : 45}
          max={isMetric ? 400 : 880}
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
