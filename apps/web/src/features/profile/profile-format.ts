import type { Units } from "@tonus/contract";
import type { TFunction } from "i18next";
import { convertCmToFeetInches, convertKgToLb, roundTo } from "../../shared/format/units.ts";

export function formatNumber(value: number, language: string, maxDecimals = 1): string {
  return new Intl.NumberFormat(language, { maximumFractionDigits: maxDecimals }).format(value);
}

/** `YYYY-MM-DD` as a calendar date; parsed as UTC so no time zone shifts the day. */
export function formatDate(isoDate: string, language: string): string {
  return new Intl.DateTimeFormat(language, { dateStyle: "long", timeZone: "UTC" }).format(
    new Date(`${isoDate}T00:00:00Z`),
  );
}

export function formatHeight(t: TFunction, cm: number, units: Units): string {
  if (units === "metric") return t("units.cm_value", { value: formatNumber(cm, t("locale_tag"), 0) });
  const { feet, inches } = convertCmToFeetInches(cm);
  return t("units.ft_in_value", { feet, inches: formatNumber(inches, t("locale_tag")) });
}

export function formatWeight(t: TFunction, kg: number, units: Units): string {
  if (units === "metric") return t("units.kg_value", { value: formatNumber(kg, t("locale_tag")) });
  return t("units.lb_value", { value: formatNumber(roundTo(convertKgToLb(kg), 1), t("locale_tag")) });
}
