import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp } from "../../test/harness.ts";
import { runIftttConformance } from "./ifttt.conformance.ts";
import { TRIGGERS } from "./ifttt.triggers.ts";

const KEY = "ifttt-conformance-service-key-0123456789";

describe.each(BACKENDS)("IFTTT endpoint tests (local replica) against Tonus on %s", (backend) => {
  let app: App;
  let baseUrl: string;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), {
      IFTTT_SERVICE_KEY: KEY,
      IFTTT_TEST_MODE: "1",
    });
    await resetDatabase(app.ctx.database);
    // Over real HTTP on loopback, as IFTTT's tester calls a service.
    await app.listen({ port: 0, host: "127.0.0.1" });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it("passes every check, for every trigger, field and action test/setup names", async () => {
    const results = await runIftttConformance({ baseUrl, serviceKey: KEY });
    expect(results.filter((r) => !r.ok)).toEqual([]);
    const names = results.map((r) => r.name);
    for (const slug of Object.keys(TRIGGERS)) {
      expect(names).toContain(`${slug}: newest first`);
      expect(names).toContain(`${slug}: limit 0 gives an empty list`);
    }
    for (const action of ["log_blood_pressure", "log_weight", "log_water"])
      expect(names).toContain(`${action}: the skipping sample answers status SKIP`);
    expect(names).toContain("bp_in_category.category: options are {label, value}");
    expect(names).toContain("stress_above.threshold: the invalid sample is invalid, with a message");
    expect(results.length).toBeGreaterThan(100);
  }, 120_000);
});

/**
 * A deliberately wrong IFTTT service, so the suite is seen to fail: no key check on status, any bearer
 * token accepted, items oldest first with millisecond timestamps, `limit` ignored, the skipping sample
 * accepted, an error without IFTTT's `errors` shape, and a text/plain answer.
 */
function brokenService(): http.Server {
  const items = [1, 2, 3].map((n) => ({ value: n, meta: { id: `e${n}`, timestamp: 1_700_000_000_000 + n } }));
  return http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const send = (status: number, body: unknown, type = "application/json; charset=utf-8") => {
        res.writeHead(status, { "content-type": type });
        res.end(typeof body === "string" ? body : JSON.stringify(body));
      };
      const key = req.headers["ifttt-service-key"];
      const url = req.url ?? "";
      if (url === "/ifttt/v1/status") return send(200, {});
      if (url === "/ifttt/v1/test/setup") {
        if (key !== KEY) return send(401, { errors: [{ message: "no" }] });
        return send(200, {
          data: {
            accessToken: "token",
            samples: {
              triggers: { any_event: {} },
              actions: { do_thing: { x: "1" } },
              actionRecordSkipping: { do_thing: { x: "" } },
            },
          },
        });
      }
      if (url === "/ifttt/v1/user/info")
        return send(200, { data: { id: "u1", name: "Fixture" } }, "text/plain");
      if (url.startsWith("/ifttt/v1/triggers/any_event/trigger_identity/")) return send(200, {});
      if (url === "/ifttt/v1/triggers/any_event") return send(200, { data: items });
      if (url === "/ifttt/v1/actions/do_thing") {
        const body = raw ? (JSON.parse(raw) as { actionFields?: unknown }) : {};
        if (!body.actionFields) return send(400, { error: "missing" });
        return send(200, { data: [{ id: "a1" }] });
      }
      return send(404, { errors: [{ message: "Not found" }] });
    });
  });
}

describe("the IFTTT endpoint-test replica", () => {
  const server = brokenService();
  let baseUrl = "";
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reports a service that breaks IFTTT's protocol", async () => {
    const results = await runIftttConformance({ baseUrl, serviceKey: KEY });
    const failed = results.filter((r) => !r.ok).map((r) => r.name);
    expect(failed).toEqual(
      expect.arrayContaining([
        "status: 401 without a service key",
        "status: 401 with a wrong service key",
        "user/info: 200 with the token",
        "user/info: 401 with an invalid token",
        "any_event: meta.timestamp is whole seconds since the epoch",
        "any_event: newest first",
        "any_event: limit 1 gives 1 item",
        "any_event: limit 0 gives an empty list",
        "any_event: 401 with an invalid token",
        "do_thing: 400 for the skipping sample",
        "do_thing: the skipping sample answers status SKIP",
        "do_thing: 400 without actionFields",
      ]),
    );
    // What it does right still passes.
    const passed = results.filter((r) => r.ok).map((r) => r.name);
    expect(passed).toEqual(
      expect.arrayContaining(["status: 200 with the service key", "test/setup: 200 with the service key"]),
    );
  });
});
