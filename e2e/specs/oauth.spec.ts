// Issue 9 in Chromium, in English and Russian: an IFTTT-style client (registered with the operator CLI by
// e2e/support/server.ts, redirecting to a loopback stand-in) goes from `?scope=ifttt…` on any page through
// sign-in and the consent page back to its redirect URI with a code; the code becomes a token; a new
// blood-pressure reading, and then a measurement saved on the measure page, is first in its trigger; an
// action writes; revoking in the profile makes the next call 401. axe runs on the consent page and the
// profile's connected services.
import path from "node:path";
import { fileURLToPath } from "node:url";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, request as playwrightRequest, test } from "@playwright/test";
import { API } from "@tonus/contract";
import { LANGS, tr } from "../support/i18n.ts";
import { readDetail, saveAfterRecording } from "../support/measure.ts";
import { E2E_MAIL_API_PORT } from "../support/ports.ts";
import { csrfHeaders, newUser, registerViaApi } from "../support/seed.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RR_FILE = path.join(HERE, "../../packages/hrv/test/fixtures/rr/welltory_52176180c0_rr.csv");

type Client = { client_id: string; client_secret: string; redirect_uri: string };

async function expectNoAxeViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(", ")}`)).toEqual([]);
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`IFTTT authorization (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("scope=ifttt → sign-in → consent → code → token → trigger and action → revoke → 401", async ({
      page,
      baseURL,
    }) => {
      const base = baseURL ?? "";
      const api = await playwrightRequest.newContext({ baseURL: base });
      const client = (await (
        await api.get(`http://127.0.0.1:${E2E_MAIL_API_PORT}/ifttt/client`)
      ).json()) as Client;
      expect(client.client_secret).toMatch(/^tcs_/);
      const user = newUser(`oauth-${lang}`);
      // Registered in a separate context, so the browser arrives signed out.
      await registerViaApi(api, user, base);

      const state = `state-${lang}-${Date.now()}`;
      const query = new URLSearchParams({
        scope: "ifttt",
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: client.redirect_uri,
        state,
      });
      await page.goto(`/dashboard?${query.toString()}`);
      await expect(page).toHaveURL(/\/auth\/signin\?destination=%2Foauth2%2Fauthorize%2Fifttt%3Frequest%3D/, {
        timeout: 20_000,
      });
      await page.getByLabel(t("auth.email")).fill(user.email);
      await page.getByLabel(t("auth.password")).fill(user.password);
      await page.getByRole("button", { name: t("auth.signin.submit") }).click();

      await expect(page).toHaveURL(/\/oauth2\/authorize\/ifttt\?request=[\w-]+$/, { timeout: 20_000 });
      await expect(page.getByRole("heading", { level: 1, name: t("oauth.consent.title") })).toBeVisible({
        timeout: 20_000,
      });
      await expect(page.getByText(t("oauth.consent.asks", { client: "IFTTT" }))).toBeVisible();
      await expect(page.getByText(t("oauth.scopes.ifttt"))).toBeVisible();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("oauth.consent.allow", { client: "IFTTT" }) }).click();

      await page.waitForURL((url) => url.toString().startsWith(client.redirect_uri), { timeout: 20_000 });
      const back = new URL(page.url());
      expect(back.searchParams.get("state")).toBe(state);
      const code = back.searchParams.get("code") ?? "";
      expect(code).not.toBe("");

      const token = await api.post("/oauth2/token/", {
        form: {
          grant_type: "authorization_code",
          code,
          redirect_uri: client.redirect_uri,
          client_id: client.client_id,
          client_secret: client.client_secret,
        },
      });
      expect(token.status()).toBe(200);
      expect(token.headers()["cache-control"]).toBe("no-store");
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      const bearer = { authorization: `Bearer ${accessToken}` };
      const me = await api.get("/ifttt/v1/user/info", { headers: bearer });
      expect(me.status()).toBe(200);

      // A new blood-pressure reading, added by the person in the app, comes first in the trigger.
      const reading = await page.request.post(API.bpReadings, {
        data: {
          systolic: 171,
          diastolic: 101,
          measured_at: new Date().toISOString(),
          time_zone: "Europe/Moscow",
        },
        headers: await csrfHeaders(page.request, base),
      });
      expect(reading.ok(), await reading.text()).toBe(true);
      await expect
        .poll(
          async () => {
            const res = await api.post("/ifttt/v1/triggers/new_bp_reading", {
              headers: bearer,
              data: {
                trigger_identity: `ti-${lang}`,
                triggerFields: {},
                limit: 5,
                user: { timezone: "UTC" },
              },
            });
            const items = ((await res.json()) as { data: { systolic: number }[] }).data;
            return items[0]?.systolic ?? null;
          },
          { timeout: 30_000 },
        )
        .toBe(171);

      // A measurement the person saves in the app (an RR file through the measure page's save form) comes
      // first in the HRV trigger, with its time in the zone IFTTT sends.
      await page.goto("/measure");
      await page.getByRole("button", { name: t("measure.file.choose") }).click({ timeout: 20_000 });
      await page.getByLabel(t("measure.file.pick")).setInputFiles(RR_FILE);
      await page.getByRole("button", { name: t("measure.file.use") }).click();
      await saveAfterRecording(page, lang, `ifttt-${lang}`);
      const measurement = await readDetail(page);
      await expect
        .poll(
          async () => {
            const res = await api.post("/ifttt/v1/triggers/new_hrv_measurement", {
              headers: bearer,
              data: {
                trigger_identity: `ti-hrv-${lang}`,
                triggerFields: {},
                user: { timezone: "Europe/Moscow" },
              },
            });
            const items = ((await res.json()) as { data: { meta: { id: string }; measured_at: string }[] })
              .data;
            return items[0] ? { id: items[0].meta.id, zone: items[0].measured_at.slice(-6) } : null;
          },
          { timeout: 30_000 },
        )
        .toEqual({ id: `new_hrv_measurement-hrv_measurement-${measurement.id}`, zone: "+03:00" });

      const action = await api.post("/ifttt/v1/actions/log_water", {
        headers: bearer,
        data: { actionFields: { amount_ml: "300" }, user: { timezone: "UTC" } },
      });
      expect(action.status()).toBe(200);

      // Revoking in the profile: the service disappears and its token stops working.
      await page.goto("/user/profile");
      await expect(page.getByRole("heading", { level: 2, name: t("oauth.services.title") })).toBeVisible({
        timeout: 20_000,
      });
      await expect(page.getByText("IFTTT", { exact: true })).toBeVisible({ timeout: 20_000 });
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("oauth.services.revoke_named", { name: "IFTTT" }) }).click();
      await expect(page.getByText(t("oauth.services.empty"))).toBeVisible({ timeout: 20_000 });
      const after = await api.get("/ifttt/v1/user/info", { headers: bearer });
      expect(after.status()).toBe(401);
      expect(((await after.json()) as { errors: { message: string }[] }).errors[0]?.message).toBeTruthy();
      // The code was single-use.
      const replay = await api.post("/oauth2/token/", {
        form: {
          grant_type: "authorization_code",
          code,
          redirect_uri: client.redirect_uri,
          client_id: client.client_id,
          client_secret: client.client_secret,
        },
      });
      expect(replay.status()).toBe(400);

      await api.dispose();
    });

    test("a declined consent goes back with error=access_denied", async ({ page, baseURL }) => {
      const base = baseURL ?? "";
      const api = await playwrightRequest.newContext({ baseURL: base });
      const client = (await (
        await api.get(`http://127.0.0.1:${E2E_MAIL_API_PORT}/ifttt/client`)
      ).json()) as Client;
      await registerViaApi(page.request, newUser(`oauth-deny-${lang}`), base);
      const query = new URLSearchParams({
        response_type: "code",
        client_id: client.client_id,
        redirect_uri: client.redirect_uri,
        state: "deny-state",
      });
      await page.goto(`/oauth2/authorize/?${query.toString()}`);
      await page.getByRole("button", { name: t("oauth.consent.deny") }).click({ timeout: 20_000 });
      await page.waitForURL((url) => url.toString().startsWith(client.redirect_uri), { timeout: 20_000 });
      const back = new URL(page.url());
      expect(back.searchParams.get("error")).toBe("access_denied");
      expect(back.searchParams.get("state")).toBe("deny-state");
      // A redirect URI that is not registered is never followed.
      const evil = new URLSearchParams({
        ...Object.fromEntries(query),
        redirect_uri: "https://evil.example/cb",
      });
      await page.goto(`/oauth2/authorize/?${evil.toString()}`);
      expect(new URL(page.url()).host).toBe(new URL(base).host);
      await api.dispose();
    });
  });
}
