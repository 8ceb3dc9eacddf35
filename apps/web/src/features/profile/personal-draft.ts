import type { Locale, Profile, ProfileUpdate } from "@tonus/contract";
import {
  convertCmToFeetInches,
  convertFeetInchesToCm,
  convertKgToLb,
  convertLbToKg,
  roundTo,
} from "../../shared/format/units.ts";

export type Draft = {
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

export function toDraft(profile: Profile): Draft {
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
export function toUpdate(draft: Draft, profile: Profile): ProfileUpdate {
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
