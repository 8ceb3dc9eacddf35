import {
  IftttActionRequestSchema,
  IftttFieldOptionsRequestSchema,
  IftttFieldValidateRequestSchema,
  IftttTriggerRequestSchema,
} from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import {
  describeBody,
  expectNoServerError,
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  type FuzzBody,
  fuzzRequests,
} from "../../test/fuzz.ts";
import { buildTestApp } from "../../test/harness.ts";
import { ACTIONS } from "./ifttt.actions.ts";
import { TRIGGERS } from "./ifttt.triggers.ts";

const KEY = "ifttt-fuzz-service-key-0123456789";
const V1 = "/ifttt/v1";

/**
 * Whether the path reaches the IFTTT routes at all: one that is not valid percent-encoding, or has a
 * segment longer than the router's 100-character parameter limit, is answered by the app's own 400/414.
 */
const isRoutable = (url: string) => {
  try {
    return decodeURIComponent(url)
      .split("/")
      .every((segment) => segment.length <= 100);
  } catch {
    return false;
  }
};

/** Path segments: the real names, near misses and hostile text. */
const segment = (names: string[]) =>
  fc.oneof(
    fc.constantFrom(...names),
    fc.constantFrom("", "..", "%2e%2e", "__proto__", "constructor", "x".repeat(300), "%00", "%C0%AF"),
    fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s) || "x"),
  );

/**
 * RELIABILITY Z1 for IFTTT's service API: FUZZ_RUNS bodies per route from the contract's schemas
 * (packages/contract/src/ifttt.ts), sent with a valid, a forged or no bearer token. Never a 5xx; every
 * error is IFTTT's `{errors: [{message}]}` with the app's `error` and `code` beside it.
 */
describe.each(BACKENDS)("hostile requests on the IFTTT routes on %s (Z1)", (backend) => {
  let app: App;
  let token: string;
  beforeAll(async () => {
    app = await buildTestApp(
      await getTestDatabase(backend),
      { IFTTT_SERVICE_KEY: KEY, IFTTT_TEST_MODE: "1" },
      { workJobs: false },
    );
    await resetDatabase(app.ctx.database);
    const setup = await app.inject({
      method: "POST",
      url: `${V1}/test/setup`,
      headers: { "ifttt-service-key": KEY, "content-type": "application/json" },
      payload: "{}",
    });
    token = setup.json().data.accessToken;
  });
  afterAll(() => app.close());

  const authorization = () =>
    fc.oneof(
      { weight: 8, arbitrary: fc.constant(`Bearer ${token}`) },
      fc.constantFrom(undefined, "Bearer", "Bearer toa_forged", `Token ${token}`, `Bearer ${token}x`),
      fc.string({ maxLength: 300 }).map((s) => `Bearer ${s}`),
    );

  async function send(
    method: "POST" | "GET" | "DELETE",
    url: string,
    auth: string | undefined,
    body?: FuzzBody,
  ) {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = auth;
    if (body) headers["content-type"] = body.contentType;
    const res = await app.inject({ method, url, headers, ...(body ? { payload: body.payload } : {}) });
    const what = `${method} ${url} ${body ? describeBody(body) : ""}`;
    expectNoServerError(res, what);
    if (res.statusCode >= 400 && isRoutable(url))
      expect(res.json().errors, what).toEqual([expect.objectContaining({ message: expect.any(String) })]);
    return res;
  }

  const bodyRoutes: { name: string; url: fc.Arbitrary<string>; schema: z.ZodType }[] = [
    {
      name: "POST triggers/{trigger}",
      url: segment(Object.keys(TRIGGERS)).map((t) => `${V1}/triggers/${t}`),
      schema: IftttTriggerRequestSchema,
    },
    {
      name: "POST triggers/{trigger}/fields/{field}/options",
      url: fc
        .tuple(segment(Object.keys(TRIGGERS)), segment(["category", "threshold"]))
        .map(([t, f]) => `${V1}/triggers/${t}/fields/${f}/options`),
      schema: IftttFieldOptionsRequestSchema,
    },
    {
      name: "POST triggers/{trigger}/fields/{field}/validate",
      url: fc
        .tuple(segment(Object.keys(TRIGGERS)), segment(["category", "threshold"]))
        .map(([t, f]) => `${V1}/triggers/${t}/fields/${f}/validate`),
      schema: IftttFieldValidateRequestSchema,
    },
    {
      name: "POST actions/{action}",
      url: segment(Object.keys(ACTIONS)).map((a) => `${V1}/actions/${a}`),
      schema: IftttActionRequestSchema,
    },
  ];

  it.each(bodyRoutes)(
    "answers every body on $name with < 500 in IFTTT's error shape",
    async ({ url, schema }) => {
      const statuses = new Set<number>();
      await fc.assert(
        fc.asyncProperty(url, authorization(), fuzzRequests(schema), async (path, auth, body) => {
          statuses.add((await send("POST", path, auth, body)).statusCode);
        }),
        { numRuns: FUZZ_RUNS },
      );
      // The generators reach past the token check: some bodies are refused as bodies, some accepted.
      expect([...statuses].some((s) => s === 200 || s === 400)).toBe(true);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "answers every trigger identity on DELETE triggers/{trigger}/trigger_identity/{id} with < 500",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          segment(Object.keys(TRIGGERS)),
          segment(["abc"]),
          authorization(),
          async (t, id, auth) => {
            await send("DELETE", `${V1}/triggers/${t}/trigger_identity/${id}`, auth);
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "answers every key and token on status, test/setup and user/info with < 500 (O6)",
    async () => {
      const key = fc.oneof(
        fc.constant(KEY),
        fc.string({ maxLength: 300 }),
        fc.constantFrom("", `${KEY} `, KEY.toUpperCase()),
      );
      await fc.assert(
        fc.asyncProperty(
          key,
          fc.boolean(),
          authorization(),
          fuzzRequests(IftttFieldOptionsRequestSchema),
          async (k, old, auth, body) => {
            const header = old ? "ifttt-channel-key" : "ifttt-service-key";
            const status = await app.inject({ method: "GET", url: `${V1}/status`, headers: { [header]: k } });
            expectNoServerError(status, `status ${k}`);
            expect(status.statusCode).toBe(k === KEY ? 200 : 401);
            const setup = await app.inject({
              method: "POST",
              url: `${V1}/test/setup`,
              headers: { [header]: k, "content-type": body.contentType },
              payload: body.payload,
            });
            expectNoServerError(setup, `test/setup ${k} ${describeBody(body)}`);
            if (k !== KEY) expect(setup.statusCode).not.toBe(200);
            await send("GET", `${V1}/user/info`, auth);
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
