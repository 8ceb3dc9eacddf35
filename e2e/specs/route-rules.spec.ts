// Every route rule of spec §2 from one table: what a signed-out visitor, a signed-in user and the mobile
// web view get on each path, and `scope=ifttt` on any of them (issue 2 "How it is checked").
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { expect, test } from "../support/fixtures.ts";
import { LANGS, type Lang, tr } from "../support/i18n.ts";
import { E2E_HELP_URL } from "../support/ports.ts";
import { newUser, registerViaApi } from "../support/seed.ts";

/** Where a visit ends: the final path and query (or full URL off the app), and the page title shown there. */
type Outcome = { url: string; title: string; isTitleLiteral?: boolean };
type Row = {
  path: string;
  signedOut: Outcome;
  signedIn: Outcome;
  /** In the web view, whether the page is flagged for the app's own screen (spec §2 mobile redirect). */
  webView?: "flagged" | "kept";
  /** A URL the visit passes through on the way (client-side), when the rule is about that step. */
  via?: { signedOut?: string };
};

const SIGN_IN: Outcome = { url: "/auth/signin", title: "auth.signin.title" };
const signInTo = (destination: string): Outcome => ({
  url: `/auth/signin?destination=${encodeURIComponent(destination)}`,
  title: "auth.signin.title",
});
const DASHBOARD: Outcome = { url: "/dashboard", title: "dashboard.title" };
const page404: Outcome = { url: "/404/", title: "errors.not_found.title" };
const page500: Outcome = { url: "/500/", title: "errors.server_down.title" };
const at = (url: string, title: string): Outcome => ({ url, title });
// The configured help centre (a stand-in page served by the e2e harness).
const HELP: Outcome = { url: E2E_HELP_URL, title: "Help centre stand-in", isTitleLiteral: true };

/**
 * The title key of a row in the web app's route table, or null when the app has no such route yet.
 * Read as text: the plans page belongs to the billing feature, and "/" sends visitors there once it exists.
 */
function webRouteTitleKey(routePath: string): string | null {
  const routesFile = fileURLToPath(new URL("../../apps/web/src/app/routes.ts", import.meta.url));
  const source = fs.readFileSync(routesFile, "utf8");
  const escaped = routePath.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const match = new RegExp(`path: "${escaped}",[^}]*?titleKey: "([^"]+)"`).exec(source);
  return match?.[1] ?? null;
}
const PLANS_PATH = "/payments/plans/main/";
const plansTitle = webRouteTitleKey(PLANS_PATH);
const ROOT_SIGNED_OUT: Outcome = plansTitle ? at(PLANS_PATH, plansTitle) : SIGN_IN;

const ROUTE_TABLE: readonly Row[] = [
  // "/" goes to the path in the hash; without one to the plans page (sign-in until it exists) or /dashboard.
  { path: "/", signedOut: ROOT_SIGNED_OUT, signedIn: DASHBOARD },
  {
    path: "/#/terms",
    signedOut: at("/terms", "legal.terms.title"),
    signedIn: at("/terms", "legal.terms.title"),
  },
  { path: "/#https://evil.example/", signedOut: ROOT_SIGNED_OUT, signedIn: DASHBOARD },
  // Signed-out-only pages forward to the sign-in and registration pages, or to destination once signed in.
  { path: "/user/login", signedOut: SIGN_IN, signedIn: DASHBOARD },
  {
    path: "/user/login?destination=%2Fuser%2Funits",
    signedOut: signInTo("/user/units"),
    signedIn: at("/user/units", "profile.units.title"),
  },
  { path: "/user/login?destination=https%3A%2F%2Fevil.example%2F", signedOut: SIGN_IN, signedIn: DASHBOARD },
  {
    path: "/user/register",
    signedOut: at("/auth/registration/?destination=%2Fdashboard", "auth.registration.title"),
    signedIn: DASHBOARD,
  },
  { path: "/auth/signin", signedOut: SIGN_IN, signedIn: DASHBOARD },
  {
    path: "/auth/registration/",
    signedOut: at("/auth/registration/", "auth.registration.title"),
    signedIn: DASHBOARD,
  },
  {
    path: "/auth/password-recovery",
    signedOut: at("/auth/password-recovery", "auth.recovery.title"),
    signedIn: at("/auth/password-recovery", "auth.recovery.title"),
    webView: "flagged",
  },
  // Direct login without its pair: sign-in keeping destination (or the destination itself when signed in).
  {
    path: "/user/login-direct?destination=%2Fuser%2Fprofile",
    signedOut: signInTo("/user/profile"),
    signedIn: at("/user/profile", "profile.title"),
  },
  // Protected pages: /user/login with the current query plus destination, then the sign-in page.
  {
    path: "/user/profile?ref=mail",
    signedOut: signInTo("/user/profile"),
    signedIn: at("/user/profile?ref=mail", "profile.title"),
    webView: "flagged",
    via: { signedOut: "/user/login?ref=mail&destination=%2Fuser%2Fprofile" },
  },
  {
    path: "/user/personal",
    signedOut: signInTo("/user/personal"),
    signedIn: at("/user/personal", "profile.personal.title"),
    webView: "flagged",
  },
  {
    path: "/user/units",
    signedOut: signInTo("/user/units"),
    signedIn: at("/user/units", "profile.units.title"),
    webView: "flagged",
  },
  // Public and free pages render for everyone.
  {
    path: "/privacy-policy",
    signedOut: at("/privacy-policy", "legal.privacy.title"),
    signedIn: at("/privacy-policy", "legal.privacy.title"),
    webView: "kept",
  },
  {
    path: "/terms",
    signedOut: at("/terms", "legal.terms.title"),
    signedIn: at("/terms", "legal.terms.title"),
    webView: "kept",
  },
  {
    path: "/save-data",
    signedOut: at("/save-data", "legal.save_data.title"),
    signedIn: at("/save-data", "legal.save_data.title"),
    webView: "flagged",
  },
  { path: "/dashboard", signedOut: DASHBOARD, signedIn: DASHBOARD, webView: "flagged" },
  // Data sources: exact paths (spec §2); one segment more is an unknown page.
  {
    path: "/data-sources",
    signedOut: signInTo("/data-sources"),
    signedIn: at("/data-sources", "sources.title"),
    webView: "flagged",
  },
  {
    path: "/data-sources/oura-ring",
    signedOut: signInTo("/data-sources/oura-ring"),
    signedIn: at("/data-sources/oura-ring", "sources.source_title"),
  },
  { path: "/data-sources/oura-ring/extra", signedOut: page404, signedIn: page404 },
  {
    path: "/data-sources-mobile-back/apple-health",
    signedOut: signInTo("/data-sources-mobile-back/apple-health"),
    signedIn: at("/data-sources-mobile-back/apple-health", "sources.source_title"),
  },
  { path: "/help-redirect", signedOut: HELP, signedIn: HELP },
  { path: "/help-auth-redirect", signedOut: HELP, signedIn: HELP },
  // Errors: /error → /500/, /page-404 and any unknown path → /404/.
  { path: "/error", signedOut: page500, signedIn: page500 },
  { path: "/page-404", signedOut: page404, signedIn: page404 },
  { path: "/no/such/page", signedOut: page404, signedIn: page404 },
  { path: "/500/", signedOut: page500, signedIn: page500, webView: "flagged" },
  { path: "/404/", signedOut: page404, signedIn: page404, webView: "flagged" },
  // Last: it ends the session.
  { path: "/user/logout", signedOut: SIGN_IN, signedIn: SIGN_IN },
];

/** Records every URL the page shows, client-side navigations included. */
function recordUrls(page: Page): string[] {
  const seen: string[] = [];
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) seen.push(frame.url());
  });
  return seen;
}

async function expectOutcome(page: Page, lang: Lang, origin: string, outcome: Outcome): Promise<void> {
  await expect(page).toHaveURL(outcome.url.startsWith("http") ? outcome.url : `${origin}${outcome.url}`);
  const title = outcome.isTitleLiteral ? outcome.title : tr(lang, outcome.title);
  await expect(page.getByRole("heading", { level: 1, name: title, exact: true })).toBeVisible();
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`route rules (${lang})`, () => {
    test.use({ locale: browserLocale });

    for (const row of ROUTE_TABLE) {
      test(`signed out: ${row.path}`, async ({ page, baseURL }) => {
        const seen = recordUrls(page);
        await page.goto(row.path);
        await expectOutcome(page, lang, baseURL ?? "", row.signedOut);
        if (row.via?.signedOut) expect(seen).toContain(`${baseURL}${row.via.signedOut}`);
      });
    }

    test.describe("signed in", () => {
      // One account per worker: no row but /user/logout changes the session, and that one has its own test.
      test.use({ storageState: async ({ signedInState }, use) => use(signedInState) });
      for (const row of ROUTE_TABLE.filter((r) => r.path !== "/user/logout")) {
        test(`signed in: ${row.path}`, async ({ page, baseURL }) => {
          await page.goto(row.path);
          await expectOutcome(page, lang, baseURL ?? "", row.signedIn);
        });
      }
    });

    test("signed in: /user/logout ends the session", async ({ page, baseURL }) => {
      const origin = baseURL ?? "";
      await registerViaApi(page.request, newUser(`routes-logout-${lang}`), origin);
      await page.goto("/user/units");
      await expectOutcome(page, lang, origin, at("/user/units", "profile.units.title"));
      await page.goto("/user/logout");
      await expectOutcome(page, lang, origin, SIGN_IN);
      await page.goto("/user/units");
      await expectOutcome(page, lang, origin, signInTo("/user/units"));
    });

    test("web view: no header or footer, every page but the listed ones flagged for the app", async ({
      page,
      baseURL,
    }) => {
      const origin = baseURL ?? "";
      await registerViaApi(page.request, newUser(`webview-${lang}`), origin);
      // `?webview=1` turns the mode on for the tab (apps/web/README.md).
      await page.goto("/terms?webview=1");
      await expect(
        page.getByRole("heading", { level: 1, name: tr(lang, "legal.terms.title") }),
      ).toBeVisible();
      const html = page.locator("html");
      for (const row of ROUTE_TABLE.filter((r) => r.webView)) {
        await test.step(row.path, async () => {
          await page.goto(row.path);
          await expectOutcome(page, lang, origin, row.signedIn);
          await expect(page.getByRole("banner")).toHaveCount(0);
          await expect(page.getByRole("contentinfo")).toHaveCount(0);
          if (row.webView === "flagged") await expect(html).toHaveAttribute("data-mobile-redirect", "true");
          else await expect(html).not.toHaveAttribute("data-mobile-redirect", /.*/);
        });
      }
      // scope=ifttt is never flagged: it leaves for the authorization endpoint.
      await page.goto("/user/profile?scope=ifttt");
      await expect(page).toHaveURL(`${origin}/oauth2/authorize/?scope=ifttt`);
    });

    test("scope=ifttt on any page goes to the API's /oauth2/authorize/ with the same query", async ({
      page,
      baseURL,
    }) => {
      const origin = baseURL ?? "";
      const query = "?scope=ifttt&client_id=ifttt&state=s%C3%A9cret%2B1&response_type=code";
      // One page of each kind in the table: forwarding, signed-out-only, protected, public, unknown.
      for (const pagePath of [
        "/",
        "/user/login",
        "/auth/signin",
        "/user/profile",
        "/terms",
        "/no/such/page",
      ]) {
        await test.step(pagePath, async () => {
          await page.goto(`${pagePath}${query}`);
          await expect(page).toHaveURL(`${origin}/oauth2/authorize/${query}`);
        });
      }
    });
  });
}

test.describe("web view detected from the companion app's user agent", () => {
  test.use({ userAgent: "Mozilla/5.0 (Linux; Android 14) TonusApp/1.0" });

  test("header and footer are hidden and the page is flagged", async ({ page }) => {
    await page.goto("/save-data");
    await expect(
      page.getByRole("heading", { level: 1, name: tr("en", "legal.save_data.title") }),
    ).toBeVisible();
    await expect(page.getByRole("banner")).toHaveCount(0);
    await expect(page.getByRole("contentinfo")).toHaveCount(0);
    await expect(page.locator("html")).toHaveAttribute("data-mobile-redirect", "true");
  });
});
