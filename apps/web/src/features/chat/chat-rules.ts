import { isSharePagePath, type UserType } from "@tonus/contract";
import { isBarePath } from "../../app/layout/chrome.ts";

/** Spec §9: the chat widget boots 2 seconds after load. */
export const CHAT_BOOT_DELAY_MS = 2000;

/**
 * Spec §2: the widget is hidden on /payment-cancel and wherever the header is (measure-details, …);
 * RELIABILITY H3: a share page loads nothing from another origin, even for a signed-in visitor.
 */
export function isChatHiddenOn(pathname: string): boolean {
  return pathname.startsWith("/payment-cancel") || isBarePath(pathname) || isSharePagePath(pathname);
}

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
  return !isChatHiddenOn(options.pathname);
}

/** What the page knows now, for deciding about an already booted chat. */
export type ChatSituation = {
  /** The full user's id, or null when the visitor is not a full user (signed out, share viewer). */
  userId: string | null;
  pathname: string;
};

/**
 * What to do with a chat that is booted for `bootedFor`: shut it down when that person is gone (logout,
 * or another person signed in), hide or show its launcher by the page, or nothing.
 */
export function decideBootedChat(
  bootedFor: string,
  launcherHidden: boolean,
  now: ChatSituation,
): "shutdown" | "hide" | "show" | null {
  if (now.userId !== bootedFor) return "shutdown";
  const hide = isChatHiddenOn(now.pathname);
  if (hide === launcherHidden) return null;
  return hide ? "hide" : "show";
}
