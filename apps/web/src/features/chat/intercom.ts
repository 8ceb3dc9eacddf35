/**
 * The few calls Tonus makes to the Intercom Messenger (developers.intercom.com, "Install Messenger"):
 * `boot` with the person's identity, `update` when the page changes, `hide`, and `shutdown` at logout,
 * which ends the Messenger session and forgets the visitor in this browser.
 */

export type IntercomBootSettings = {
  app_id: string;
  user_id: string;
  /** Identity verification: HMAC-SHA256 of user_id with the operator's secret, computed on the server. */
  user_hash?: string;
  email?: string;
  name?: string;
  language_override?: string;
  hide_default_launcher?: boolean;
};

type IntercomFn = ((command: string, options?: object) => void) & { q?: unknown[][] };
type IntercomWindow = Window & { Intercom?: IntercomFn };

const SCRIPT_MARK = "data-chat-widget";

/**
 * Intercom's documented loader stub: calls made before the widget script has arrived wait in
 * `Intercom.q`, and the widget replays them when it starts.
 */
function intercom(): IntercomFn {
  const w = window as IntercomWindow;
  if (typeof w.Intercom === "function") return w.Intercom;
  const queue: unknown[][] = [];
  const stub: IntercomFn = Object.assign((...args: unknown[]) => void queue.push(args), { q: queue });
  w.Intercom = stub;
  return stub;
}

/** Adds the widget's script once per page. */
function loadScript(url: string): void {
  if (document.querySelector(`script[${SCRIPT_MARK}]`)) return;
  const script = document.createElement("script");
  script.src = url;
  script.async = true;
  script.setAttribute(SCRIPT_MARK, "");
  document.body.appendChild(script);
}

export function bootChat(widgetUrl: string, settings: IntercomBootSettings): void {
  const call = intercom();
  loadScript(widgetUrl);
  call("boot", settings);
}

export function setChatLauncherHidden(hidden: boolean): void {
  const call = intercom();
  call("update", { hide_default_launcher: hidden });
  // An open Messenger closes too when the page must not show it.
  if (hidden) call("hide");
}

export function shutdownChat(): void {
  intercom()("shutdown");
}
