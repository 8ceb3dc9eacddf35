import { REFERRAL_QUERY_PARAM } from "@tonus/contract";

const STORAGE_KEY = "tonus.referral";

/**
 * The referral code a visitor came with: `?ref=` on the registration page, remembered for the tab so a
 * detour (sign-in page, plans) does not lose it. The server ignores a code it does not know.
 */
export function readReferralCode(search: string): string | undefined {
  const fromQuery = new URLSearchParams(search).get(REFERRAL_QUERY_PARAM)?.trim().slice(0, 64);
  try {
    if (fromQuery) sessionStorage.setItem(STORAGE_KEY, fromQuery);
    return fromQuery || sessionStorage.getItem(STORAGE_KEY) || undefined;
  } catch {
    return fromQuery || undefined;
  }
}

/** After registering, the code has done its work. */
export function forgetReferralCode(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing was stored without storage.
  }
}
