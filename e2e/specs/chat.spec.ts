// Issue 9, the support chat in Chromium. Intercom itself is outside this machine: its Messenger script is
// replaced by a local stand-in (fixtures/chat/intercom-stand-in.js) that answers the documented calls
// (boot, update, hide, shutdown) and records them. The e2e server has no INTERCOM_KEY, so the first test
// sees the real configuration; the second turns the chat on by answering the config call in the browser
// with a key and the stand-in's address (same origin, so the server's CSP admits it unchanged).
import { createHmac } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { type BrowserContext, expect, type Page, test } from "@playwright/test";
import { API, type Profile, type ShareLinkCreated } from "@tonus/contract";
import { tr } from "../support/i18n.ts";
import { E2E_INTERCOM_SECRET } from "../support/ports.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";
import { openSharePage } from "../support/share.ts";

const STAND_IN_PATH = "/__e2e__/intercom-stand-in.js";
const STAND_IN_FILE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/chat/intercom-stand-in.js",
);

type Call = [string, Record<string, unknown> | null];
type ChatWindow = Window & { __intercomCalls?: Call[]; __chatScriptAtMs?: number; Intercom?: unknown };

/** Notes when the chat script element appears, in ms after the page started (before any app code runs). */
async function watchScript(page: Page): Promise<void> {
  await page.addInitScript(() => {
    new MutationObserver(() => {
      const w = window as ChatWindow;
      if (w.__chatScriptAtMs === undefined && document.querySelector("script[data-chat-widget]"))
        w.__chatScriptAtMs = performance.now();
    }).observe(document, { childList: true, subtree: true });
  });
}

/** A client-side navigation, as a link inside the app makes (no reload, the Messenger stays). */
async function navigateInApp(page: Page, to: string): Promise<void> {
  await page.evaluate((target) => {
    history.pushState({}, "", target);
    dispatchEvent(new PopStateEvent("popstate"));
  }, to);
}

const calls = (page: Page) => page.evaluate(() => (window as ChatWindow).__intercomCalls ?? []);

async function signedInContext(browser: import("@playwright/test").Browser, baseURL: string) {
  const context = await browser.newContext({ baseURL, locale: "en-US" });
  const user = newUser("chat");
  await registerViaApi(context.request, user, baseURL);
  const profile = (await (await context.request.get(API.profile)).json()) as Profile;
  return { context, user, profile };
}

test.describe("support chat", () => {
  test("stays out entirely without intercom_key: no script, no request, no Intercom", async ({
    browser,
    baseURL,
  }) => {
    const base = baseURL ?? "";
    const { context } = await signedInContext(browser, base);
    const page = await context.newPage();
    await watchScript(page);
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.goto("/user/profile");
    await expect(page.getByRole("heading", { level: 1, name: tr("en", "profile.title") })).toBeVisible();
    // Past the 2 s boot delay (with a margin), nothing has been loaded.
    await page.waitForFunction(() => performance.now() > 4_000, undefined, { timeout: 20_000 });
    expect(await page.evaluate(() => (window as ChatWindow).__chatScriptAtMs)).toBeUndefined();
    expect(await page.evaluate(() => typeof (window as ChatWindow).Intercom)).toBe("undefined");
    expect(requested.filter((url) => !url.startsWith(base))).toEqual([]);
    expect(requested.filter((url) => /intercom|__e2e__/.test(url))).toEqual([]);
    await context.close();
  });

  test("boots 2 s after load with user_id and the server's hmac, hides on /payment-cancel, shuts down at logout", async ({
    browser,
    baseURL,
  }) => {
    const base = baseURL ?? "";
    const { context, user, profile } = await signedInContext(browser, base);
    await turnChatOn(context);
    const page = await context.newPage();
    await watchScript(page);
    await page.goto("/user/profile");
    await expect(page.getByRole("heading", { level: 1, name: tr("en", "profile.title") })).toBeVisible();

    const launcher = page.getByRole("button", { name: "Support chat" });
    await expect(launcher).toBeVisible({ timeout: 20_000 });
    expect(await page.evaluate(() => (window as ChatWindow).__chatScriptAtMs)).toBeGreaterThanOrEqual(2_000);
    const hash = createHmac("sha256", E2E_INTERCOM_SECRET).update(profile.id).digest("hex");
    expect(profile.hmac).toBe(hash);
    expect((await calls(page))[0]).toEqual([
      "boot",
      {
        app_id: "e2e-app",
        user_id: profile.id,
        user_hash: hash,
        email: user.email,
        name: user.name,
        language_override: "en",
      },
    ]);
    const axe = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
    expect(axe.violations.map((v) => v.id)).toEqual([]);

    // Hidden where the spec hides the widget, back on other pages; the Messenger stays booted.
    await navigateInApp(page, "/payment-cancel");
    await expect(
      page.getByRole("heading", { level: 1, name: tr("en", "payments.cancel.title") }),
    ).toBeVisible();
    await expect(launcher).toBeHidden();
    await navigateInApp(page, "/user/profile");
    await expect(launcher).toBeVisible();
    expect((await calls(page)).slice(1)).toEqual([
      ["update", { hide_default_launcher: true }],
      ["hide", null],
      ["update", { hide_default_launcher: false }],
    ]);

    // Logging out ends the Messenger session in this browser.
    await navigateInApp(page, "/user/logout");
    await expect(page).toHaveURL(/\/auth\/signin/, { timeout: 20_000 });
    await expect(launcher).toBeHidden();
    expect((await calls(page)).at(-1)).toEqual(["shutdown", null]);
    expect((await calls(page)).filter(([command]) => command === "boot")).toHaveLength(1);
    await context.close();
  });
});

test("never loads on a share page, even for a signed-in person with the chat on (H3)", async ({
  browser,
  baseURL,
}) => {
  const base = baseURL ?? "";
  const { context } = await signedInContext(browser, base);
  await turnChatOn(context);
  const rr = Array.from({ length: 60 }, (_, i) => 800 + 30 * Math.sin(i / 2));
  const headers = await csrfHeaders(context.request, base);
  const created = await context.request.post(API.measurements, {
    data: {
      client_id: crypto.randomUUID(),
      rr_ms: rr,
      source: "file",
      started_at: new Date(Date.now() - 3600_000).toISOString(),
      time_zone: "Europe/Moscow",
    },
    headers,
  });
  const { id } = (await created.json()) as { id: string };
  const link = await context.request.post(API.shareLinks, {
    data: { kind: "measurement", target_id: id },
    headers,
  });
  const { token } = (await link.json()) as ShareLinkCreated;
  const page = await context.newPage();
  await watchScript(page);
  const requested: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  const thirdParty = await openSharePage(page, `${base}/share-measurement#${token}`);
  await expect(page.getByText(tr("en", "share.banner.text"))).toBeVisible();
  // Past the 2 s boot delay (with a margin): no script, no Messenger, nothing from elsewhere.
  await page.waitForFunction(() => performance.now() > 4_000, undefined, { timeout: 20_000 });
  expect(await page.evaluate(() => (window as ChatWindow).__chatScriptAtMs)).toBeUndefined();
  expect(await page.evaluate(() => typeof (window as ChatWindow).Intercom)).toBe("undefined");
  expect(requested.filter((url) => url.includes(STAND_IN_PATH))).toEqual([]);
  expect(thirdParty()).toEqual([]);
  await context.close();
});

/** The configuration the browser sees gets an Intercom key and the stand-in's address; the stand-in is served. */
async function turnChatOn(context: BrowserContext): Promise<void> {
  await context.route(`**${API.configEnv}`, async (route) => {
    try {
      const response = await route.fetch();
      const body = (await response.json()) as Record<string, unknown>;
      await route.fulfill({
        response,
        json: { ...body, intercom_key: "e2e-app", chat_widget_url: STAND_IN_PATH },
      });
    } catch (error) {
      // A config call the page abandoned (it navigated, as logout does) has no answer to change; seen
      // as "Response has been disposed". Anything else is a real failure.
      if (!String(error).includes("disposed")) throw error;
    }
  });
  await context.route(`**${STAND_IN_PATH}`, (route) =>
    route.fulfill({ path: STAND_IN_FILE, contentType: "application/javascript; charset=utf-8" }),
  );
}
