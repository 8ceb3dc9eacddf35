import type { TFunction } from "i18next";
import { ApiError } from "../../shared/api/client.ts";

/** Screens show our own words for an error code, never the server's text. */
export function describeError(t: TFunction, error: unknown): string {
  if (error instanceof ApiError) {
    const key = `errors.codes.${error.code}`;
    return t(key, { defaultValue: t("errors.codes.unknown") });
  }
  return t("errors.codes.unknown");
}
