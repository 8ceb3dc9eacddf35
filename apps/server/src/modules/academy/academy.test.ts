import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { API } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";
import { createTestUser } from "../../test/users.ts";
import { listAllProgress } from "./academy.repo.ts";
import { reloadAcademy } from "./academy.sync.ts";
import { DEFAULT_ACADEMY_DIR } from "./content.ts";

const courseUrl = (id: string) => API.academyCourse.replace(":courseId", id);
const materialUrl = (id: string) => API.academyMaterial.replace(":materialId", id);
const progressUrl = (id: string) => API.academyProgress.replace(":materialId", id);

const PNG_BYTES = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
  "base64",
);

/** A content folder with one extra course whose material exists only in English. */
function writeFixtureContent(root: string): string {
  const dir = path.join(root, "content");
  cpSync(DEFAULT_ACADEMY_DIR, dir, { recursive: true });
  const course = path.join(dir, "fixture-course");
  mkdirSync(course);
  writeFileSync(
    path.join(course, "course.yaml"),
    "id: fixture-course\norder: 99\ntitle:\n  en: Fixture\n  ru: Тест\ndescription:\n  en: D\n  ru: О\nmissing:\n  english-only: ru\n",
  );
  writeFileSync(
    path.join(course, "1-english-only.en.md"),
    "---\ntitle: English only\nslug: english-only\norder: 1\nkind: article\nduration_min: 2\npro: false\nparameters: []\n---\n\nText.\n\n![A tachogram](images/pic.png)\n\n## Sources\n\n- Ref.\n",
  );
  mkdirSync(path.join(course, "images"));
  writeFileSync(path.join(course, "images", "pic.png"), PNG_BYTES);
  return dir;
}

describe.each(BACKENDS)("academy API on %s", (backend) => {
  let app: App;
  /** The harness's default is BILLING_MODE=sandbox; this one has billing off. */
  let billingOff: App;
  const root = mkdtempSync(path.join(tmpdir(), "academy-api-"));
  const fixtureDir = writeFixtureContent(root);

  beforeAll(async () => {
    const database = await getTestDatabase(backend);
    app = await buildTestApp(database);
    billingOff = await buildTestApp(database, { BILLING_MODE: "off" });
  });
  afterAll(async () => {
    await app.close();
    await billingOff.close();
    rmSync(root, { recursive: true, force: true });
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    await reloadAcademy(app.ctx.database.db);
  });

  it("lists courses keyed by id with N of M counts for a signed-in person, and refuses visitors", async () => {
    expect((await new TestClient(app).get(API.academyCourses)).statusCode).toBe(403);
    const user = await createTestUser(app.ctx.database);
    const res = await user.client(app).get(`${API.academyCourses}?language=ru`);
    expect(res.statusCode).toBe(200);
    const courses = res.json();
    expect(Object.keys(courses)).toEqual(["hrv-basics", "measuring-well", "stress-recovery", "sleep-energy"]);
    expect(courses["hrv-basics"]).toMatchObject({
      id: "hrv-basics",
      materials_total: 5,
      materials_finished: 0,
    });
    expect(courses["hrv-basics"].title).toBe(
      "Вариабельность сердечного ритма и вегетативная нервная система",
    );
  });

  it("lets a visitor read a course and a free material in either language", async () => {
    const visitor = new TestClient(app);
    const course = await visitor.get(courseUrl("hrv-basics"));
    expect(course.statusCode).toBe(200);
    expect(course.json().materials.map((m: { id: string }) => m.id)).toEqual([
      "what-is-hrv",
      "time-domain",
      "baevsky-histogram",
      "frequency-bands",
      "check-yourself",
    ]);
    const ru = (await visitor.get(`${materialUrl("time-domain")}?language=ru`)).json();
    expect(ru).toMatchObject({
      available: true,
      locked: false,
      language: "ru",
      state: 0,
      course: "hrv-basics",
    });
    expect(ru.html).toContain("<h2>rMSSD — главный показатель на каждый день</h2>");
    expect(ru.parameters).toContain("rmssd");
  });

  it("counts a finished material once even when it is finished twice, and never un-finishes it", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const first = await client.post(progressUrl("what-is-hrv"), { state: 4 });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ state: 4, materials_finished: 1, course: "hrv-basics" });
    expect((await client.post(progressUrl("what-is-hrv"), { state: 4 })).json().materials_finished).toBe(1);
    expect((await client.post(progressUrl("what-is-hrv"), { state: 1 })).json().state).toBe(4);
    expect((await client.get(API.academyCourses)).json()["hrv-basics"].materials_finished).toBe(1);
    await client.post(progressUrl("time-domain"), { state: 1 });
    const course = (await client.get(courseUrl("hrv-basics"))).json();
    expect(course.materials_finished).toBe(1);
    expect(course.materials.slice(0, 2).map((m: { state: number }) => m.state)).toEqual([4, 1]);
  });

  it("keeps progress when the content is reloaded, changed and restored", async () => {
    const user = await createTestUser(app.ctx.database);
    const client = user.client(app);
    await client.post(progressUrl("what-is-hrv"), { state: 4 });
    await reloadAcademy(app.ctx.database.db);
    expect((await client.get(API.academyCourses)).json()["hrv-basics"].materials_finished).toBe(1);

    const changed = path.join(root, "changed");
    cpSync(DEFAULT_ACADEMY_DIR, changed, { recursive: true });
    rmSync(path.join(changed, "hrv-basics", "1-what-is-hrv.en.md"));
    rmSync(path.join(changed, "hrv-basics", "1-what-is-hrv.ru.md"));
    const result = await reloadAcademy(app.ctx.database.db, changed);
    expect(result.problems).toEqual([]);
    expect((await client.get(materialUrl("what-is-hrv"))).statusCode).toBe(404);
    expect((await client.get(API.academyCourses)).json()["hrv-basics"]).toMatchObject({
      materials_total: 4,
      materials_finished: 0,
    });

    await reloadAcademy(app.ctx.database.db);
    expect((await client.get(API.academyCourses)).json()["hrv-basics"].materials_finished).toBe(1);
    expect((await client.get(materialUrl("what-is-hrv"))).json().state).toBe(4);
  });

  it("keeps the stored content when asked to load an empty or missing folder", async () => {
    const result = await reloadAcademy(app.ctx.database.db, path.join(root, "does-not-exist"));
    expect(result.courses).toBe(0);
    expect(result.problems.length).toBeGreaterThan(0);
    expect((await new TestClient(app).get(courseUrl("hrv-basics"))).statusCode).toBe(200);
  });

  it.each([
    ["GET", courseUrl("no-such-course")],
    ["GET", materialUrl("no-such-material")],
    ["GET", materialUrl("..%2F..%2Fetc%2Fpasswd")],
    ["GET", courseUrl("__proto__")],
    ["POST", progressUrl("no-such-material")],
  ] as const)("answers 404 for an unknown id: %s %s", async (method, url) => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const res = method === "GET" ? await client.get(url) : await client.post(url, { state: 4 });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe("not_found");
  });

  it("keeps one person's progress invisible to and unchangeable by another (A1)", async () => {
    const alice = await createTestUser(app.ctx.database);
    const bob = await createTestUser(app.ctx.database);
    await alice.client(app).post(progressUrl("check-yourself"), { state: 4, answers: { q1: 0 } });
    const bobView = (await bob.client(app).get(materialUrl("check-yourself"))).json();
    expect(bobView).toMatchObject({ state: 0, answers: null });
    expect((await bob.client(app).get(API.academyCourses)).json()["hrv-basics"].materials_finished).toBe(0);
    await bob.client(app).post(progressUrl("check-yourself"), { state: 1, answers: { q1: 2 } });
    const aliceView = (await alice.client(app).get(materialUrl("check-yourself"))).json();
    expect(aliceView).toMatchObject({ state: 4, answers: { q1: 0 } });
    const aliceRows = await listAllProgress(app.ctx.database.db, alice.userId);
    expect(aliceRows.map((row) => [row.materialId, row.state])).toEqual([["check-yourself", 4]]);
  });

  it("records quiz answers and returns the questions with explanations", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const quiz = (await client.get(materialUrl("check-yourself"))).json();
    expect(quiz.quiz).toHaveLength(5);
    expect(quiz.quiz[0].explanation).toBeTruthy();
    const saved = await client.post(progressUrl("check-yourself"), { state: 1, answers: { q1: 0, q2: 1 } });
    expect(saved.json().answers).toEqual({ q1: 0, q2: 1 });
    expect((await client.get(materialUrl("check-yourself"))).json().answers).toEqual({ q1: 0, q2: 1 });
  });

  it.each([
    ["a state outside 0, 1, 4", { state: 3 }],
    ["a string state", { state: "4" }],
    ["an extra key", { state: 4, user_id: "00000000-0000-4000-8000-000000000000" }],
    ["an answer to an unknown question", { state: 1, answers: { q99: 0 } }],
    ["an answer outside the options", { state: 1, answers: { q1: 7 } }],
    ["a negative answer", { state: 1, answers: { q1: -1 } }],
    ["an array body", [4]],
  ])("refuses %s with 400 (Z)", async (_label, body) => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const res = await client.post(progressUrl("check-yourself"), body);
    expect(res.statusCode).toBe(400);
  });

  it("refuses answers for a material that is not a quiz", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    expect((await client.post(progressUrl("what-is-hrv"), { state: 1, answers: { q1: 0 } })).statusCode).toBe(
      400,
    );
  });

  it("needs sign-in and CSRF to record progress", async () => {
    expect((await new TestClient(app).post(progressUrl("what-is-hrv"), { state: 4 })).statusCode).toBe(403);
    const client = (await createTestUser(app.ctx.database)).client(app);
    client.cookies.delete("csrftoken");
    expect((await client.post(progressUrl("what-is-hrv"), { state: 4 })).statusCode).toBe(403);
  });

  it("locks a PRO material for non-customers with its introduction only, and opens it for customers", async () => {
    const free = await createTestUser(app.ctx.database);
    const customer = await createTestUser(app.ctx.database, { isCustomerOverride: true });
    for (const client of [new TestClient(app), free.client(app)]) {
      const locked = (await client.get(materialUrl("frequency-bands"))).json();
      expect(locked).toMatchObject({ locked: true, pro: true, available: true });
      expect(locked.html).toContain("Spectral analysis splits");
      expect(locked.html).not.toContain("<h2>");
      expect(locked.html).not.toContain("respiratory sinus arrhythmia");
    }
    const open = (await customer.client(app).get(materialUrl("frequency-bands"))).json();
    expect(open.locked).toBe(false);
    expect(open.html).toContain("respiratory sinus arrhythmia");
    // With billing off everyone, visitors included, is a customer.
    expect((await new TestClient(billingOff).get(materialUrl("frequency-bands"))).json().locked).toBe(false);
  });

  it("answers 200 with the available languages for a material missing in the requested one", async () => {
    const result = await reloadAcademy(app.ctx.database.db, fixtureDir);
    expect(result.problems).toEqual([]);
    const ru = await new TestClient(app).get(`${materialUrl("english-only")}?language=ru`);
    expect(ru.statusCode).toBe(200);
    expect(ru.json()).toMatchObject({
      available: false,
      html: "",
      available_languages: ["en"],
      language: "ru",
    });
    const en = (await new TestClient(app).get(`${materialUrl("english-only")}?language=en`)).json();
    expect(en).toMatchObject({
      available: true,
      html: expect.stringMatching(/^<p>Text\.<\/p>\n.*<h2>Sources<\/h2>\n<ul><li>Ref\.<\/li><\/ul>$/s),
    });
  });

  it("turns links to other material files into site links", async () => {
    const html = (await new TestClient(app).get(materialUrl("what-moves-hrv"))).json().html;
    expect(html).toContain('<a href="/lms/materials/how-much-sleep">How much sleep you need</a>');
    expect(html).toContain('<a href="/lms/materials/resonance-breathing">');
  });

  it("describes the breathing pacer of the exercise", async () => {
    const exercise = (await new TestClient(app).get(materialUrl("resonance-breathing"))).json();
    expect(exercise).toMatchObject({
      kind: "exercise",
      pacer: { inhale_s: 4, exhale_s: 6, duration_min: 5 },
    });
  });

  it("serves images beside the content and nothing else from the content folder", async () => {
    const media = await buildTestApp(app.ctx.database, { ACADEMY_CONTENT_DIR: fixtureDir });
    try {
      await reloadAcademy(media.ctx.database.db, fixtureDir);
      const client = new TestClient(media);
      const html = (await client.get(materialUrl("english-only"))).json().html;
      expect(html).toContain('<img src="/media/academy/fixture-course/images/pic.png" alt="A tachogram"');
      const image = await client.get("/media/academy/fixture-course/images/pic.png");
      expect(image.statusCode).toBe(200);
      expect(image.headers["content-type"]).toBe("image/png");
      expect(image.headers["x-content-type-options"]).toBe("nosniff");
      expect(image.rawPayload.equals(PNG_BYTES)).toBe(true);
      for (const url of [
        "/media/academy/fixture-course/1-english-only.en.md",
        "/media/academy/fixture-course/course.yaml",
        "/media/academy/fixture-course/images/missing.png",
        "/media/academy/fixture-course/../hrv-basics/course.yaml",
        "/media/academy/fixture-course/%2e%2e/%2e%2e/%2e%2e/etc/passwd.png",
        "/media/academy/..%2f..%2fetc/passwd.png",
        "/media/academy/fixture-course/images/.hidden.png",
      ]) {
        const res = await client.get(url);
        expect(res.statusCode, url).toBe(404);
        expect(res.json().code, url).toBe("not_found");
      }
    } finally {
      await media.close();
    }
  });

  it("indexes which materials explain each measurement parameter, in course order", async () => {
    const res = await new TestClient(app).get(`${API.academyParameters}?language=ru`);
    expect(res.statusCode).toBe(200);
    const index = res.json() as Record<string, { id: string; course: string; title: string }[]>;
    expect(index.rmssd?.[0]).toMatchObject({ id: "time-domain", course: "hrv-basics" });
    expect(index.rmssd?.map((link) => link.id)).toContain("resonance-breathing");
    expect(index.stress_index?.map((link) => link.course)).toContain("stress-recovery");
    expect(index.rmssd?.[0]?.title).toMatch(/[а-я]/i);
    for (const links of Object.values(index)) expect(links.length).toBeGreaterThan(0);
  });
});
