import type { Units } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { formatHeight, formatWeight } from "./profile-format.ts";
import { useProfile, useUpdateProfile } from "./use-profile.ts";

const CHOICES: Units[] = ["metric", "imperial"];

export default function UnitsPage() {
  const { t } = useTranslation();
  const profile = useProfile();
  const update = useUpdateProfile();
  if (profile.isPending) return <LoadingState />;
  if (profile.isError) return <Alert status="error">{t("profile.load_failed")}</Alert>;
  const { units, height, weight } = profile.data;
  return (
    <Card>
      <fieldset aria-busy={update.isPending}>
        <legend>{t("profile.units.legend")}</legend>
        {CHOICES.map((choice) => (
          <label key={choice} className="choice">
            <input
              type="radio"
              name="units"
              value={choice}
              checked={units === choice}
              onChange={() => update.mutate({ units: choice })}
            />
            {t(`profile.units.${choice}`)}
          </label>
        ))}
      </fieldset>
      <p className="muted">{t("profile.units.explain")}</p>
      {(height !== null || weight !== null) && (
        <dl className="summary">
          {height !== null && (
            <>
              <dt>{t("profile.fields.height")}</dt>
              <dd>{formatHeight(t, height, units)}</dd>
            </>
          )}
          {weight !== null && (
            <>
              <dt>{t("profile.fields.weight")}</dt>
              <dd>{formatWeight(t, weight, units)}</dd>
            </>
          )}
        </dl>
      )}
    </Card>
  );
}
