import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SOURCES_API, type SourceDetail, type SourceList } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { connectorConnections } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { upload, waitForImport } from "../imports/test/import-client.ts";
import { CATALOGUE, findSourceEntry } from "./sources.catalogue.ts";
import { GUIDES } from "./sources.guides.ts";
import { monogramSvg } from "./sources.logo.ts";

const CYRILLIC = /[А-Яа-яЁё]/;

describe("the data-source catalogue", () => {
  it("lists more than 80 gadgets and apps under unique, address-safe slugs", () => {
    expect(CATALOGUE.length).toBeGreaterThan(80);
    const slugs = CATALOGUE.map((e) => e.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it("covers watches, rings, straps, scales, blood-pressure monitors, sleep, nutrition and HRV apps", () => {
    const categories = new Set(CATALOGUE.flatMap((e) => e.categories));
    for (const c of [
      "watches",
      "rings",
      "straps",
      "scales",
      "bp_monitors",
      "sleep_apps",
      "nutrition_apps",
      "hrv_apps",
    ])
      expect(categories, c).toContain(c);
  });

  it("gives every entry a way Tonus really reads, and aggregators that exist and take files", () => {
    for (const entry of CATALOGUE) {
      expect(entry.methods.length, entry.slug).toBeGreaterThan(0);
      expect(entry.dataTypes.length, entry.slug).toBeGreaterThan(0);
      for (const m of entry.methods) {
        if (m.kind !== "aggregator") continue;
        const via = findSourceEntry(m.via);
        expect(
          via?.methods.some((v) => v.kind === "file"),
          `${entry.slug} via ${m.via}`,
        ).toBe(true);
      }
      // Only Health Connect has no route on the web (it is read on the phone); it must say so, not pretend.
      const onWeb = entry.methods.some((m) => m.kind !== "mobile_app" && m.kind !== "cloud");
      if (!onWeb) expect(entry.slug).toBe("health-connect");
    }
  });

  it("writes every description and step in English and in Russian, with every name filled in", () => {
    for (const entry of CATALOGUE) {
      expect(entry.description.en.length, entry.slug).toBeGreaterThan(20);
      expect(entry.description.ru, entry.slug).toMatch(CYRILLIC);
      expect(`${entry.description.en}${entry.description.ru}`).not.toContain("{name}");
    }
    for (const [key, steps] of Object.entries(GUIDES)) {
      expect(steps.en.length, key).toBe(steps.ru.length);
      for (const s of steps.ru) expect(s, key).toMatch(CYRILLIC);
    }
  });

  it("draws monograms that are plain SVG with the entry's letters, escaped", () => {
    const svg = monogramSvg({ monogram: "A&<", hue: 10 });
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain("A&amp;&lt;");
    expect(svg).not.toMatch(/<script|href=/i);
  });
});

describe.each(BACKENDS)("data-source routes on %s", (backend) => {
  let app: App;
  let filesDir: string;
  beforeAll(async () => {
    filesDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-sources-"));
    app = await buildTestApp(await getTestDatabase(backend), { FILES_DIR: filesDir });
  });
  afterAll(async () => {
    await app.close();
    fs.rmSync(filesDir, { recursive: true, force: true });
  });
  beforeEach(async () => resetDatabase(app.ctx.database));

  it("answers the catalogue only to a signed-in person", async () => {
    expect((await app.inject({ method: "GET", url: SOURCES_API.list })).statusCode).toBe(403);
    const user = await createTestUser(app.ctx.database);
    const list = (await user.client(app).get(SOURCES_API.list)).json() as SourceList;
    expect(list.results).toHaveLength(CATALOGUE.length);
    expect(list.categories[0]).toBe("platforms");
    expect(list.results.every((s) => s.state === "none" && s.last_import_at === null)).toBe(true);
  });

  it("says a cloud connection is not available here and Apple Health connects in the mobile app only", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const oura = (await client.get(SOURCES_API.detail.replace(":slug", "oura-ring"))).json() as SourceDetail;
    expect(oura.methods.find((m) => m.kind === "cloud")).toMatchObject({
      provider: "oura",
      available: false,
    });
    expect(oura.connectable).toBe(true);
    const apple = (
      await client.get(SOURCES_API.detail.replace(":slug", "apple-health"))
    ).json() as SourceDetail;
    expect(apple.methods.map((m) => m.kind)).toEqual(["file", "mobile_app"]);
    expect(apple.methods[1]?.steps.en[0]).toMatch(/only the Tonus mobile app can connect or disconnect/);
    const hc = (
      await client.get(SOURCES_API.detail.replace(":slug", "health-connect"))
    ).json() as SourceDetail;
    expect(hc.connectable).toBe(false);
    expect((await client.get(SOURCES_API.detail.replace(":slug", "no-such"))).statusCode).toBe(404);
  });

  it("shows the person's own latest import and state on the entry, and nobody else's (A1)", async () => {
    const a = await createTestUser(app.ctx.database);
    const b = await createTestUser(app.ctx.database);
    const rr = `${Array.from({ length: 60 }, (_, i) => 800 + (i % 7) * 10).join("\n")}\n`;
    const res = await upload(a.client(app), "elite-hrv", "reading.txt", new TextEncoder().encode(rr));
    const done = await waitForImport(a.client(app), res.json().id);
    const mine = (
      await a.client(app).get(SOURCES_API.detail.replace(":slug", "elite-hrv"))
    ).json() as SourceDetail;
    expect(mine).toMatchObject({ state: "imported", last_import: { id: done.id, status: "done" } });
    const theirs = (
      await b.client(app).get(SOURCES_API.detail.replace(":slug", "elite-hrv"))
    ).json() as SourceDetail;
    expect(theirs).toMatchObject({ state: "none", last_import: null });
    // A CSV waiting for its columns is not "importing": the person has something to do.
    const csv = new TextEncoder().encode("time,heart rate\n2024-01-02 08:00,61\n");
    expect((await upload(a.client(app), "csv-file", "mine.csv", csv)).json()).toMatchObject({
      status: "needs_mapping",
    });
    const list = (await a.client(app).get(SOURCES_API.list)).json() as SourceList;
    expect(list.results.find((s) => s.slug === "csv-file")?.state).toBe("needs_mapping");
  });

  it("shows the person's own cloud connections on every entry of the provider, and nobody else's (A1)", async () => {
    const a = await createTestUser(app.ctx.database);
    const b = await createTestUser(app.ctx.database);
    await app.ctx.database.db.insert(connectorConnections).values([
      { userId: a.userId, provider: "oura", historyStart: new Date("2026-01-01T00:00:00Z") },
      {
        userId: a.userId,
        provider: "withings",
        status: "reconnect_needed",
        historyStart: new Date("2026-01-01T00:00:00Z"),
      },
    ]);
    const list = (await a.client(app).get(SOURCES_API.list)).json() as SourceList;
    const cloudOf = (slug: string) => list.results.find((s) => s.slug === slug)?.cloud;
    expect(cloudOf("oura-ring")).toBe("connected");
    const withings = CATALOGUE.filter((e) =>
      e.methods.some((m) => m.kind === "cloud" && m.provider === "withings"),
    );
    expect(withings.length).toBeGreaterThan(1);
    for (const e of withings) expect(cloudOf(e.slug)).toBe("reconnect_needed");
    expect(cloudOf("apple-health")).toBe("none");
    expect(cloudOf("polar-flow")).toBe("none");
    const detail = (
      await a.client(app).get(SOURCES_API.detail.replace(":slug", "oura-ring"))
    ).json() as SourceDetail;
    expect(detail.cloud).toBe("connected");
    const theirs = (await b.client(app).get(SOURCES_API.list)).json() as SourceList;
    expect(new Set(theirs.results.map((s) => s.cloud))).toEqual(new Set(["none"]));
  });

  it("names the vendor in the cloud steps, and shows a retired API only to those still linked through it", async () => {
    const a = await createTestUser(app.ctx.database);
    const b = await createTestUser(app.ctx.database);
    const detail = async (user: typeof a, slug: string) =>
      (await user.client(app).get(SOURCES_API.detail.replace(":slug", slug))).json() as SourceDetail;
    // The step says the vendor, as the connector's button does ("Connect Oura"), not the ring.
    const ouraCloud = (await detail(a, "oura-ring")).methods.find((m) => m.kind === "cloud");
    expect(ouraCloud?.steps.en[0]).toContain("the Oura cloud");
    expect(ouraCloud?.steps.en.join(" ")).not.toContain("Oura Ring");
    // Not configured here: after the file; once the operator configures it, first.
    const kinds = async () => (await detail(a, "oura-ring")).methods.map((m) => m.kind);
    expect(await kinds()).toEqual(["file", "aggregator", "cloud"]);
    const config = app.ctx.config as unknown as Record<string, string | undefined>;
    Object.assign(config, { OURA_CLIENT_ID: "id", OURA_CLIENT_SECRET: "secret" });
    try {
      expect(await kinds()).toEqual(["cloud", "file", "aggregator"]);
      const steps = (await detail(a, "oura-ring")).methods[0]?.steps.en ?? [];
      expect(steps[0]).toBe("Press Connect Oura below: Tonus takes you to Oura, where you sign in.");
    } finally {
      config.OURA_CLIENT_ID = undefined;
      config.OURA_CLIENT_SECRET = undefined;
    }
    // Fitbit turned its Web API off on 2026-10-30 (the connector's retiredOn).
    const fitbitEntry = CATALOGUE.find((e) =>
      e.methods.some((m) => m.kind === "cloud" && m.provider === "fitbit"),
    );
    if (!fitbitEntry) throw new Error("no entry with Fitbit's cloud");
    const providers = (d: SourceDetail) => d.methods.flatMap((m) => (m.kind === "cloud" ? [m.provider] : []));
    expect(providers(await detail(a, fitbitEntry.slug))).not.toContain("fitbit");
    await app.ctx.database.db
      .insert(connectorConnections)
      .values({ userId: b.userId, provider: "fitbit", historyStart: new Date("2026-01-01T00:00:00Z") });
    expect(providers(await detail(b, fitbitEntry.slug))).toContain("fitbit");
  });

  it("adds to an entry's data types what a cloud this installation connects brings, and says it connects", async () => {
    const a = await createTestUser(app.ctx.database);
    const types = async (slug: string) =>
      ((await a.client(app).get(SOURCES_API.detail.replace(":slug", slug))).json() as SourceDetail)
        .data_types;
    const listed = async (slug: string) =>
      ((await a.client(app).get(SOURCES_API.list)).json() as SourceList).results.find((s) => s.slug === slug)
        ?.data_types;
    const declared = CATALOGUE.find((e) => e.slug === "oura-ring")?.dataTypes ?? [];
    // The trends file gives neither; Oura's API gives both (its provider's metrics).
    expect(declared).not.toContain("spo2");
    expect(declared).not.toContain("energy");
    expect(await types("oura-ring")).toEqual(declared);
    const summary = async (slug: string) =>
      ((await a.client(app).get(SOURCES_API.list)).json() as SourceList).results.find((s) => s.slug === slug);
    expect((await summary("oura-ring"))?.cloud_connectable).toBe(false);
    const config = app.ctx.config as unknown as Record<string, string | undefined>;
    Object.assign(config, { OURA_CLIENT_ID: "id", OURA_CLIENT_SECRET: "secret" });
    try {
      expect(await types("oura-ring")).toEqual([...declared, "energy", "spo2"]);
      expect(await listed("oura-ring")).toEqual([...declared, "energy", "spo2"]);
      expect((await summary("oura-ring"))?.cloud_connectable).toBe(true);
      // A file-only entry stays so.
      expect((await summary("garmin-fenix"))?.cloud_connectable).toBe(false);
    } finally {
      config.OURA_CLIENT_ID = undefined;
      config.OURA_CLIENT_SECRET = undefined;
    }
  });

  it("serves every entry's monogram as an SVG without cookies, and 404 for anything else", async () => {
    const logo = await app.inject({ method: "GET", url: "/media/sources/oura-ring.svg" });
    expect(logo.statusCode).toBe(200);
    expect(logo.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(logo.headers["x-content-type-options"]).toBe("nosniff");
    for (const bad of ["oura-ring", "../etc.svg", "nope.svg"]) {
      expect((await app.inject({ method: "GET", url: `/media/sources/${bad}` })).statusCode).toBe(404);
    }
  });
});
