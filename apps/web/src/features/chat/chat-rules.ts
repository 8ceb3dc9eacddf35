import type { UserType } from "@tonus/contract";
import { isBarePath } from "../../app/layout/chrome.ts";

/** Spec §9: the chat widget boots 2 seconds after load. */
export const CHAT_BOOT_DELAY_MS = 2000;

/** Full users only, never on /payment-cancel or the header-less paths, never while URL credentials are pending. */
export function shouldLoadChat(options: {
  intercomKey: string | null | undefined;
  widgetUrl: string | null | undefined;
  userType: UserType;
  pathname: string;
  hasPendingDirectLogin: boolean;
}): boolean {
  if (!options.intercomKey || !options.widgetUrl) return false;
  if (options.userType !== "full" || options.hasPendingDirectLogin) return false;
  if (options.pathname.startsWith("/payment-cancel") || isBarePath(options.pathname)) return false;
  return true;
}
