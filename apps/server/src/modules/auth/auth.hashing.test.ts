import { API } from "@tonus/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { hashingQueue } from "../../lib/passwords.ts";
import { getTestDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";

// RELIABILITY L4: password hashing runs in a bounded queue, so a flood of sign-ins gets quick 429s with
// Retry-After instead of taking every core; other requests are still answered meanwhile.
describe("hashing under a flood of sign-ins (L4)", () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase("pglite"), { RATE_LIMIT_SIGNIN_PER_HOUR: "100000" });
  });
  afterAll(() => app.close());

  it("answers every attempt with 400 or 429 + Retry-After, never runs more hashes than allowed", async () => {
    const client = new TestClient(app);
    await client.prime();
    let maxRunning = 0;
    const probe = setInterval(() => {
      maxRunning = Math.max(maxRunning, hashingQueue.running);
    }, 1);
    const attempts = Array.from({ length: 120 }, (_, i) =>
      client.post(API.signin, { email: `nobody-${i}@example.com`, password: "wrong password" }),
    );
    const health = await app.inject({ method: "GET", url: API.health });
    const answers = await Promise.all(attempts);
    clearInterval(probe);

    expect(health.statusCode).toBe(200);
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.every((s) => s === 400 || s === 429)).toBe(true);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.json().code).toBe("rate_limited");
      expect(answer.headers["retry-after"]).toBe("1");
    }
    expect(maxRunning).toBeLessThanOrEqual(hashingQueue.concurrency);
    expect(hashingQueue.running).toBe(0);
    expect(hashingQueue.waiting).toBe(0);
  });
});
