const WEBVIEW_STORAGE_KEY = "tonus.webview";
const WEBVIEW_UA_TOKEN = "TonusApp";

/**
 * Web-view mode (see apps/web/README.md): `?webview=1` turns it on for the tab (sessionStorage),
 * `?webview=0` turns it off, and a user agent containing `TonusApp` always means the companion app.
 */
export function detectWebView(
  search: string,
  userAgent: string,
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null,
): boolean {
  const flag = new URLSearchParams(search).get("webview");
  try {
    if (flag === "1") storage?.setItem(WEBVIEW_STORAGE_KEY, "1");
    if (flag === "0") storage?.removeItem(WEBVIEW_STORAGE_KEY);
  } catch {
    // Without storage the flag lasts for this page only.
  }
  if (userAgent.includes(WEBVIEW_UA_TOKEN)) return true;
  if (flag === "1") return true;
  if (flag === "0") return false;
  try {
    return storage?.getItem(WEBVIEW_STORAGE_KEY) === "1";
  } catch {
    return false;
  }
}

let isWebViewMode: boolean | null = null;

export function isWebView(): boolean {
  if (isWebViewMode === null) {
    isWebViewMode = detectWebView(window.location.search, navigator.userAgent, safeSessionStorage());
  }
  return isWebViewMode;
}

function safeSessionStorage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

type TonusBridge = { postMessage?: (message: string) => void };

/** Tells the companion app that it should show its own screen for this page (spec §2 mobile redirect). */
export function announceMobileRedirect(path: string): void {
  document.documentElement.dataset.mobileRedirect = "true";
  const message = { type: "tonus:mobile-redirect", path };
  const bridge = (window as Window & { TonusBridge?: TonusBridge }).TonusBridge;
  if (bridge?.postMessage) {
    bridge.postMessage(JSON.stringify(message));
    return;
  }
  window.postMessage(message, window.location.origin);
}

export function clearMobileRedirect(): void {
  delete document.documentElement.dataset.mobileRedirect;
}

/** `{address}/user/profile` → `/user/profile`; other text is left alone. */
export function convertAddressLink(href: string): string {
  return href.startsWith("{address}") ? href.slice("{address}".length) || "/" : href;
}

/** External links open in a new tab, except links to our own host. */
export function isExternalLink(href: string, origin: string): boolean {
  try {
    return new URL(href, origin).origin !== origin;
  } catch {
    return false;
  }
}
