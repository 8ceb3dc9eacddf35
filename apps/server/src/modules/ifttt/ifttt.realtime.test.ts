import http from "node:http";
import type { AddressInfo } from "node:net";
import { IFTTT_REALTIME_BATCH } from "@tonus/contract";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { iftttRealtimePending, users } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { noteRealtimeNotice, sendRealtimeNotices } from "./ifttt.realtime.ts";

const KEY = "ifttt-realtime-service-key-0123456789";

/**
 * IFTTT's realtime API gets the waiting notices in batches of at most 1000 (RELIABILITY O7, issue 9
 * "batched ≤ 1000"), against a loopback stand-in of realtime.ifttt.com.
 */
describe.each(BACKENDS)("IFTTT realtime notices on %s", (backend) => {
  let app: App;
  let url: string;
  const posts: { key: string | undefined; ids: string[]; shaped: boolean }[] = [];
  /** Called while a request is in flight, before the stand-in answers it. */
  let during: (() => Promise<void>) | null = null;
  let failures = 0;
  const standIn = http.createServer((req, res) => {
    // A connection per request: a kept-alive one that this server closes while the client reuses it
    // fails the request with "fetch failed" on a busy machine, which is not what these tests are about.
    res.setHeader("connection", "close");
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", async () => {
      if (failures > 0) {
        failures--;
        res.statusCode = 500;
        return res.end('{"errors":[{"message":"down"}]}');
      }
      const parsed = JSON.parse(body) as { data: Record<string, unknown>[] };
      posts.push({
        key: req.headers["ifttt-service-key"] as string | undefined,
        ids: parsed.data.map((d) => String(d.user_id)),
        // Every item is exactly {user_id}, as IFTTT's realtime API takes it.
        shaped: parsed.data.every((item) => Object.keys(item).join() === "user_id"),
      });
      const hook = during;
      during = null;
      if (hook) await hook();
      res.end("{}");
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(standIn.address() as AddressInfo).port}/v1/notifications`;
    // No job workers: only the test sends, so the batches it sees are all there are.
    app = await buildTestApp(
      await getTestDatabase(backend),
      { IFTTT_SERVICE_KEY: KEY, IFTTT_REALTIME_URL: url },
      { workJobs: false },
    );
  });
  afterAll(async () => {
    await app.close();
    standIn.close();
  });
  beforeEach(async () => {
    await resetDatabase(app.ctx.database);
    posts.length = 0;
    failures = 0;
    during = null;
  });

  async function people(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i += 500) {
      const rows = Array.from({ length: Math.min(500, n - i) }, (_, k) => ({
        email: `p${i + k}@realtime.test`,
        username: `p${i + k}`,
      }));
      const inserted = await app.ctx.database.db.insert(users).values(rows).returning({ id: users.id });
      ids.push(...inserted.map((r) => r.id));
    }
    return ids;
  }
  const send = () => sendRealtimeNotices(app.ctx.database.db, { url, serviceKey: KEY });
  const pending = async () =>
    (await app.ctx.database.db.select().from(iftttRealtimePending)).map((r) => r.userId).sort();

  it("tells IFTTT of 2,500 people in 3 requests of at most 1000, each person once", async () => {
    const ids = await people(2500);
    for (let i = 0; i < ids.length; i += 700)
      await noteRealtimeNotice(app.ctx.database.db, ids.slice(i, i + 700));
    // A second notice for a waiting person does not make a second item.
    await noteRealtimeNotice(app.ctx.database.db, ids.slice(0, 10));
    expect(await send()).toEqual({ sent: 2500, more: false });
    expect(posts.map((p) => p.ids.length)).toEqual([IFTTT_REALTIME_BATCH, IFTTT_REALTIME_BATCH, 500]);
    expect(posts.every((p) => p.key === KEY && p.shaped)).toBe(true);
    const all = posts.flatMap((p) => p.ids);
    expect(new Set(all).size).toBe(all.length);
    expect([...all].sort()).toEqual([...ids].sort());
    expect(await pending()).toEqual([]);
    // Nothing waiting: no request at all.
    expect(await send()).toEqual({ sent: 0, more: false });
    expect(posts).toHaveLength(3);
  });

  it("keeps what IFTTT refused and sends it on the retry", async () => {
    const ids = await people(1500);
    await noteRealtimeNotice(app.ctx.database.db, ids);
    // The first batch goes through, the second is refused: the job fails (pg-boss retries it).
    failures = 0;
    during = async () => {
      failures = 1;
    };
    await expect(send()).rejects.toThrow(/500/);
    expect(posts).toHaveLength(1);
    const first = posts[0]?.ids ?? [];
    expect(first).toHaveLength(IFTTT_REALTIME_BATCH);
    const waiting = await pending();
    expect(waiting).toHaveLength(500);
    expect(waiting.some((id) => first.includes(id))).toBe(false);
    // The retry sends exactly the rest.
    expect(await send()).toEqual({ sent: 500, more: false });
    expect([...(posts[1]?.ids ?? [])].sort()).toEqual(waiting);
    expect(new Set(posts.flatMap((p) => p.ids))).toEqual(new Set(ids));
    expect(await pending()).toEqual([]);
  });

  it("does not drop a person's newer event that arrives while their batch is in flight", async () => {
    const [ann, bob, cat] = await people(3);
    if (!ann || !bob || !cat) throw new Error("no people");
    await noteRealtimeNotice(app.ctx.database.db, [ann, bob]);
    // While IFTTT is being told of Ann and Bob, Ann logs another reading and Cat her first.
    // (Each of those events also queues a run of the job, which sends what is waiting then.)
    during = () => noteRealtimeNotice(app.ctx.database.db, [ann, cat]);
    await send();
    expect(await pending()).toEqual([ann, cat].sort());
    await send();
    expect(posts.map((p) => [...p.ids].sort())).toEqual([[ann, bob].sort(), [ann, cat].sort()]);
    expect(await pending()).toEqual([]);
  });
});
