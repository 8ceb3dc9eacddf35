import { ENERGY_UNITS, type EnergyUnit, type Units } from "@tonus/contract";
import { useState } from "react";
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
  // The choice shows as checked at once: the optimistic cache update lands a tick later, and a controlled
  // radio would otherwise snap back for that moment. Once the server answers, its value is shown.
  const [pendingChoice, setPendingChoice] = useState<Units | null>(null);
  const [pendingEnergy, setPendingEnergy] = useState<EnergyUnit | null>(null);
  if (profile.isPending) return <LoadingState />;
  if (profile.isError) return <Alert status="error">{t("profile.load_failed")}</Alert>;
  const { height, weight } = profile.data;
  const units = pendingChoice ?? profile.data.units;
  const energy = pendingEnergy ?? profile.data.energy_unit;
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
              onChange={() => {
                setPendingChoice(choice);
                update.mutate({ units: choice }, { onSettled: () => setPendingChoice(null) });
              }}
            />
            {t(`profile.units.${choice}`)}
          </label>
        ))}
      </fieldset>
      <fieldset aria-busy={update.isPending}>
        <legend>{t("profile.units.energy_legend")}</legend>
        {ENERGY_UNITS.map((choice) => (
          <label key={choice} className="choice">
            <input
              type="radio"
              name="energy_unit"
              value={choice}
              checked={energy === choice}
              onChange={() => {
                setPendingEnergy(choice);
                update.mutate({ energy_unit: choice }, { onSettled: () => setPendingEnergy(null) });
              }}
            />
            {t(`profile.units.energy_${choice}`)}
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
