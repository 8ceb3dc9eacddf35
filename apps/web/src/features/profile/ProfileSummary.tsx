import type { Profile } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { formatDate, formatHeight, formatWeight } from "./profile-format.ts";

/** Name, e-mail and body data as the person chose to see them (units converted for display only). */
export function ProfileSummary({ profile }: { profile: Profile }) {
  const { t, i18n } = useTranslation();
  const notSet = t("profile.summary.not_set");
  const rows: [string, string][] = [
    [t("profile.fields.name"), profile.name || notSet],
    [t("profile.fields.email"), profile.email],
    [
      t("profile.fields.date_of_birth"),
      profile.date_of_birth ? formatDate(profile.date_of_birth, i18n.language) : notSet,
    ],
    [t("profile.fields.sex"), profile.gender ? t(`profile.sex.${profile.gender}`) : notSet],
    [
      t("profile.fields.height"),
      profile.height === null ? notSet : formatHeight(t, profile.height, profile.units),
    ],
    [
      t("profile.fields.weight"),
      profile.weight === null ? notSet : formatWeight(t, profile.weight, profile.units),
    ],
    [t("profile.fields.units"), t(`profile.units.${profile.units}`)],
  ];
  return (
    <dl className="summary">
      {rows.map(([label, value]) => (
        <div key={label} style={{ display: "contents" }}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
