// Measurements (issue 4) in Chromium (the camera flow is in measure-camera.spec.ts): strap measurements
// (2 and 5 minutes) from recorded Heart Rate Measurement notifications behind a stand-in navigator.bluetooth;
// the history's period and tag filters; a measurement left waiting uploaded as the app starts elsewhere;
// an RR file imported while offline and uploaded exactly once when the connection returns; the plain
// message where Web Bluetooth is missing; axe on the measure, detail and history pages in both languages.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { API, type MeasurementList } from "@tonus/contract";
import { LANGS, tr } from "../support/i18n.ts";
import { expectNoAxeViolations, readDetail, saveAfterRecording, signUp } from "../support/measure.ts";
import { csrfHeaders } from "../support/seed.ts";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const STRAP = JSON.parse(
  fs.readFileSync(path.join(HERE, "../fixtures/measure/strap-notifications.json"), "utf8"),
) as {
  notifications: { atMs: number; bytes: number[] }[];
};
const RR_FILE = path.join(HERE, "../../packages/hrv/test/fixtures/rr/welltory_52176180c0_rr.csv");
/** Two minutes of a calm rhythm for seeded measurements. */
const HISTORY_RR = Array.from({ length: 150 }, (_, i) =>
  Math.round(800 + 40 * Math.sin(i / 2.5) + ((i * 37) % 11)),
);

/** A stand-in for Web Bluetooth that answers requestDevice with a strap replaying recorded packets. */
function installReplayBluetooth({
  notifications,
  speed,
}: {
  notifications: { atMs: number; bytes: number[] }[];
  speed: number;
}): void {
  class Characteristic extends EventTarget {
    value: DataView | undefined;
    timers: number[] = [];
    async startNotifications() {
      for (const packet of notifications) {
        this.timers.push(
          window.setTimeout(() => {
            this.value = new DataView(new Uint8Array(packet.bytes).buffer);
            this.dispatchEvent(new Event("characteristicvaluechanged"));
          }, packet.atMs / speed),
        );
      }
      return this;
    }
    async stopNotifications() {
      for (const timer of this.timers) window.clearTimeout(timer);
      return this;
    }
  }
  const characteristic = new Characteristic();
  const device = Object.assign(new EventTarget(), {
    name: "Replay strap",
    gatt: {
      connected: true,
      connect: async () => ({
        getPrimaryService: async (service: number) => {
          if (service !== 0x180d) throw new DOMException("no service", "NotFoundError");
          return {
            getCharacteristic: async (id: number) => {
              if (id !== 0x2a37) throw new DOMException("no characteristic", "NotFoundError");
              return characteristic;
            },
          };
        },
      }),
      disconnect() {},
    },
  });
  Object.defineProperty(navigator, "bluetooth", {
    configurable: true,
    value: { getAvailability: async () => true, requestDevice: async () => device },
  });
}

for (const { lang, browserLocale } of LANGS) {
  test.describe(`measurements (${lang})`, () => {
    test.use({ locale: browserLocale });
    const t = (key: string, vars?: Record<string, string | number>) => tr(lang, key, vars);

    test("a strap's recorded notifications become a 2-minute measurement", async ({ page, baseURL }) => {
      await page.addInitScript(installReplayBluetooth, { notifications: STRAP.notifications, speed: 20 });
      await signUp(page, baseURL, `strap-${lang}`);
      await page.goto("/measure");
      await expect(page.getByRole("heading", { level: 1, name: t("measure.title") })).toBeVisible();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("measure.strap.choose") }).click();
      await page.getByRole("button", { name: t("measure.strap.connect") }).click();
      await expect(page.getByText(t("measure.strap.connected", { name: "Replay strap" }))).toBeVisible();
      await expect(page.getByRole("list", { name: t("measure.live.latest_rr") })).toBeVisible();
      await expectNoAxeViolations(page);
      await saveAfterRecording(page, lang, "e2e-strap");

      const detail = await readDetail(page);
      expect(detail).toMatchObject({ source: "strap", device: "Replay strap", tags: ["e2e-strap"] });
      const total = detail.rr_ms.reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(120_000);
      expect(total).toBeLessThan(122_000);
      await expectNoAxeViolations(page);
    });

    test("the strap's 5-minute mode records 5 minutes and unlocks the frequency domain", async ({
      page,
      baseURL,
    }) => {
      // The recording is 299 s long: the strap goes on sending it a second time, as a strap keeps
      // sending, until the 5 minutes are covered.
      const last = STRAP.notifications.at(-1)?.atMs ?? 0;
      const twice = [
        ...STRAP.notifications,
        ...STRAP.notifications.map((n) => ({ ...n, atMs: n.atMs + last + 1000 })),
      ];
      await page.addInitScript(installReplayBluetooth, { notifications: twice, speed: 20 });
      await signUp(page, baseURL, `strap5-${lang}`);
      await page.goto("/measure");
      await page.getByRole("button", { name: t("measure.strap.choose") }).click();
      await page.getByLabel(t("measure.mode.minutes", { count: 5 })).check();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("measure.strap.connect") }).click();
      await expect(page.getByText(t("measure.strap.connected", { name: "Replay strap" }))).toBeVisible();
      // Past the 2 minutes (progress beyond 40 % of 5 minutes) it is still recording.
      const ring = page.getByRole("progressbar", { name: t("measure.progress.label") });
      await expect
        .poll(async () => Number(await ring.getAttribute("aria-valuenow")), { timeout: 30_000 })
        .toBeGreaterThan(45);
      await expect(page.getByRole("heading", { level: 2, name: t("measure.save.title") })).toHaveCount(0);
      await saveAfterRecording(page, lang, "e2e-strap-5", 60_000, "five minutes, lying down");

      const detail = await readDetail(page);
      expect(detail).toMatchObject({
        source: "strap",
        tags: ["e2e-strap-5"],
        labels: ["five minutes", "lying down"],
        quality: "ok",
      });
      const total = detail.rr_ms.reduce((a, b) => a + b, 0);
      expect(total).toBeGreaterThanOrEqual(300_000);
      expect(total).toBeLessThan(302_000);
      expect(detail.rr_ms.length).toBeGreaterThan(280);
      expect(detail.spectrum).not.toBeNull();
      expect(detail.hf).not.toBeNull();
      expect(detail.lfhf).not.toBeNull();
      await expect(page.getByText(t("measure.detail.no_frequency"))).toHaveCount(0);
      await expectNoAxeViolations(page);
    });

    test("the history filters by period and by tags", async ({ page, baseURL }) => {
      const origin = baseURL ?? "";
      await signUp(page, origin, `history-${lang}`);
      const headers = await csrfHeaders(page.request, origin);
      const day = 86_400_000;
      const seeded: Record<string, string> = {};
      for (const [name, daysAgo, tags] of [
        ["today", 0.1, ["morning", "coffee"]],
        ["tenDays", 10, ["morning"]],
        ["twoMonths", 60, ["evening"]],
        ["lastYear", 400, ["morning"]],
      ] as const) {
        const res = await page.request.post(API.measurements, {
          data: {
            client_id: crypto.randomUUID(),
            rr_ms: HISTORY_RR,
            source: "file",
            started_at: new Date(Date.now() - daysAgo * day).toISOString(),
            time_zone: "UTC",
            tags,
          },
          headers,
        });
        expect(res.status(), await res.text()).toBe(201);
        seeded[name] = ((await res.json()) as { id: string }).id;
      }
      const shown = async () =>
        (
          await page
            .locator(".measure-history__item > a")
            .evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""))
        ).map((href) => decodeURIComponent(href.split("/").at(-1) ?? ""));
      const count = (n: number) => page.getByText(t("measure.history.count", { count: n }), { exact: true });
      const period = page.getByLabel(t("measure.history.period"));
      const tags = page.getByLabel(t("measure.history.tags"));
      const show = page.getByRole("button", { name: t("measure.history.apply") });

      await page.goto("/measurements");
      // The last 30 days by default, newest first.
      await expect(count(2)).toBeVisible();
      expect(await shown()).toEqual([seeded.today, seeded.tenDays]);
      await expectNoAxeViolations(page);
      await period.selectOption("7");
      await show.click();
      await expect(count(1)).toBeVisible();
      expect(await shown()).toEqual([seeded.today]);
      await period.selectOption("90");
      await show.click();
      await expect(count(3)).toBeVisible();
      await period.selectOption("all");
      await show.click();
      await expect(count(4)).toBeVisible();
      expect(await shown()).toEqual([seeded.today, seeded.tenDays, seeded.twoMonths, seeded.lastYear]);
      // Tags: every one given must be there.
      await tags.fill("morning");
      await show.click();
      await expect(count(3)).toBeVisible();
      expect(await shown()).toEqual([seeded.today, seeded.tenDays, seeded.lastYear]);
      await tags.fill("morning, coffee");
      await show.click();
      await expect(count(1)).toBeVisible();
      expect(await shown()).toEqual([seeded.today]);
      // Both filters at once: evening within the last 30 days is nothing.
      await period.selectOption("30");
      await tags.fill("evening");
      await show.click();
      await expect(page.getByText(t("measure.history.empty"))).toBeVisible();
      await expectNoAxeViolations(page);
    });

    test("without Web Bluetooth the strap option says so plainly", async ({ page, baseURL }) => {
      await signUp(page, baseURL, `nobt-${lang}`);
      await page.goto("/measure");
      await page.getByRole("button", { name: t("measure.strap.choose") }).click();
      await expect(page.getByText(t("measure.strap.unsupported"))).toBeVisible();
      await expect(page.getByRole("button", { name: t("measure.strap.connect") })).toHaveCount(0);
      await expectNoAxeViolations(page);
    });

    test("a measurement left waiting is uploaded as the app starts on another page; logout warns first", async ({
      page,
      baseURL,
    }) => {
      await signUp(page, baseURL, `queue-${lang}`);
      // The server cannot be reached for uploads (the rest of the app works).
      const unreachable = (route: import("@playwright/test").Route) =>
        route.request().method() === "POST" ? route.abort("internetdisconnected") : route.fallback();
      await page.route(`**${API.measurements}`, unreachable);
      await page.goto("/measure");
      await page.getByRole("button", { name: t("measure.file.choose") }).click();
      await page.getByLabel(t("measure.file.pick")).setInputFiles(RR_FILE);
      await page.getByRole("button", { name: t("measure.file.use") }).click();
      await page.getByLabel(t("measure.save.tags")).fill("e2e-waiting");
      await page.getByRole("button", { name: t("measure.save.submit") }).click();
      await expect(page.getByText(t("measure.save.queued"))).toBeVisible();

      // Logging out now would delete it: the page says so and offers to stay.
      await page.goto("/user/logout");
      await expect(page.getByText(t("auth.logout.unsent", { count: 1 }))).toBeVisible();
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("auth.logout.stay") }).click();
      await expect(page).toHaveURL(/\/measure$/);
      await expect(page.getByText(t("measure.queue.waiting", { count: 1 }))).toBeVisible();

      // The connection is back and the app opens on the dashboard, not the measure page.
      await page.unroute(`**${API.measurements}`, unreachable);
      await page.goto("/dashboard");
      await expect
        .poll(
          async () => ((await (await page.request.get(API.measurements)).json()) as MeasurementList).count,
          {
            timeout: 30_000,
          },
        )
        .toBe(1);
      const list = (await (await page.request.get(API.measurements)).json()) as MeasurementList;
      expect(list.results[0]).toMatchObject({ source: "file", tags: ["e2e-waiting"] });
      // Nothing waits any more: logout goes straight through.
      await page.goto("/user/logout");
      await expect(page).toHaveURL(/\/auth\/signin/, { timeout: 30_000 });
    });

    test("an RR file saved offline is uploaded exactly once when the connection returns", async ({
      page,
      context,
      baseURL,
    }) => {
      await signUp(page, baseURL, `file-${lang}`);
      await page.goto("/measure");
      await page.getByRole("button", { name: t("measure.file.choose") }).click();
      await page.getByLabel(t("measure.file.pick")).setInputFiles(RR_FILE);
      await expect(page.getByTestId("file-preview")).toContainText(
        t("measure.live.intervals_count", { count: 300 }),
      );
      await expectNoAxeViolations(page);
      await page.getByRole("button", { name: t("measure.file.use") }).click();

      await context.setOffline(true);
      await page
        .getByRole("group", { name: t("measure.save.feel") })
        .getByLabel(t("measure.save.scale_2"), { exact: true })
        .check();
      await page.getByLabel(t("measure.save.tags")).fill("e2e-offline");
      await page.getByRole("button", { name: t("measure.save.submit") }).click();
      await expect(page.getByText(t("measure.save.queued"))).toBeVisible();
      await context.setOffline(false);
      await expect(page).toHaveURL(/\/measure-details\/[^/]+$/, { timeout: 30_000 });
      await expect(
        page.getByText(t("measure.quality.bad_data")).or(page.getByTestId("score-energy")).first(),
      ).toBeVisible();
      await expectNoAxeViolations(page);

      // Reloading and going online again sends nothing more.
      await page.goto("/measure");
      await page.evaluate(() => window.dispatchEvent(new Event("online")));
      await page.goto("/measurements");
      await expect(page.getByText(t("measure.history.count", { count: 1 }))).toBeVisible();
      const list = (await (await page.request.get(API.measurements)).json()) as MeasurementList;
      expect(list.count).toBe(1);
      expect(list.results[0]).toMatchObject({ source: "file", feel: 2, tags: ["e2e-offline"] });
      await expectNoAxeViolations(page);
    });
  });
}
