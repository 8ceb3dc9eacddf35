import {
  API,
  ApiTokenCreateRequestSchema,
  DirectLoginExchangeRequestSchema,
  PasswordChangeRequestSchema,
  PasswordRecoveryRequestSchema,
  PasswordResetRequestSchema,
  RegisterRequestSchema,
  SigninRequestSchema,
} from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { App } from "../../app.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { buildTestApp, TestClient } from "../../test/harness.ts";

const RUNS = process.env.TONUS_HEAVY ? 10_000 : 300;

const ROUTES: { url: string; schema: z.ZodType }[] = [
  { url: API.register, schema: RegisterRequestSchema },
  { url: API.signin, schema: SigninRequestSchema },
  { url: API.passwordRecover, schema: PasswordRecoveryRequestSchema },
  { url: API.passwordReset, schema: PasswordResetRequestSchema },
  { url: API.passwordChange, schema: PasswordChangeRequestSchema },
  { url: API.directLogin, schema: DirectLoginExchangeRequestSchema },
  { url: API.apiTokens, schema: ApiTokenCreateRequestSchema },
];

const hostile = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -0, null, true, [], {}),
  fc.string({ minLength: 300, maxLength: 2000 }),
  fc.constant("x".repeat(1_000_000)),
  fc.constant({ __proto__: { admin: true } }),
);

/** A body shaped like the schema's object where one field has the wrong type or an extra key is smuggled in. */
function wrongShaped(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as {
    properties?: Record<string, { type?: string }>;
  };
  const keys = Object.keys(json.properties ?? {});
  const valid: Record<string, unknown> = {};
  for (const k of keys)
    valid[k] = json.properties?.[k]?.type === "boolean" ? true : "a-plausible-value@example.com";
  return fc.oneof(
    fc
      .record({
        key: fc.constantFrom(...keys),
        value: fc.oneof(fc.integer(), fc.array(fc.string()), fc.object(), fc.constant(null)),
      })
      .map(({ key, value }) => JSON.stringify({ ...valid, [key]: value })),
    fc
      .constantFrom("__proto__", "constructor", "prototype", "role", "is_staff")
      .map(
        (extra) => `{${keys.map((k) => `"${k}":${JSON.stringify(valid[k])}`).join(",")},"${extra}":{"x":1}}`,
      ),
  );
}

async function checksum(app: App): Promise<string> {
  const { rows: tables } = await app.ctx.database.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_name <> 'rate_limits' order by 1",
  );
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await app.ctx.database.query<{ h: string | null }>(
      `select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${name}" t`,
    );
    parts.push(`${name}:${rows[0]?.h}`);
  }
  return parts.join("\n");
}

describe.each(BACKENDS)("hostile bodies on the auth routes on %s (Z1)", (backend) => {
  let app: App;
  let client: TestClient;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend));
    await resetDatabase(app.ctx.database);
    client = new TestClient(app);
    await client.prime();
    await client.post(API.register, { email: "fuzz@example.com", password: "correct horse battery staple" });
  });
  afterAll(() => app.close());

  it.each(ROUTES)(
    "answers only 4xx with the error shape and changes nothing: $url",
    async ({ url, schema }) => {
      const before = await checksum(app);
      const body = fc.oneof(
        hostile.map((v) => JSON.stringify(v) ?? "null"),
        wrongShaped(schema),
        fc.string({ maxLength: 200 }),
      );
      await fc.assert(
        fc.asyncProperty(body, async (payload) => {
          const res = await client.request("POST", url, {
            payload,
            headers: { "content-type": "application/json" },
          });
          expect(res.statusCode).toBeGreaterThanOrEqual(400);
          expect(res.statusCode).toBeLessThan(500);
          const json = res.json();
          expect(typeof json.error).toBe("string");
          expect(typeof json.code).toBe("string");
        }),
        { numRuns: RUNS },
      );
      expect(await checksum(app)).toBe(before);
    },
    // 10,000 bodies per route in the heavy tier take minutes (sign-in hashes each one).
    process.env.TONUS_HEAVY ? 1_800_000 : undefined,
  );

  it("answers hostile token ids with 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (id) => {
        const res = await client.delete(API.apiToken.replace(":id", encodeURIComponent(id) || "x"));
        expect([400, 404]).toContain(res.statusCode);
        expect(typeof res.json().code).toBe("string");
      }),
      { numRuns: RUNS },
    );
  });
});
