import { OAUTH_API, OAuthDecisionRequestSchema, OAuthTokenRequestSchema } from "@tonus/contract";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { App } from "../../app.ts";
import { oauthGrants, oauthTokens } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import {
  describeBody,
  expectNoServerError,
  FUZZ_RUNS,
  FUZZ_TIMEOUT_MS,
  type FuzzBody,
  fuzzRequests,
  validBodies,
} from "../../test/fuzz.ts";
import { buildTestApp } from "../../test/harness.ts";
import { createTestUser, type TestUser } from "../../test/users.ts";
import { registerOAuthClient } from "./oauth.clients.ts";

const IFTTT_URI = "https://ifttt.com/channels/tonus/authorize";

/** The token form as clients send it: `application/x-www-form-urlencoded`, built from the schema. */
function formBodies(): fc.Arbitrary<FuzzBody> {
  const known = ["authorization_code", "refresh_token", "password", "client_credentials", "implicit"];
  const fields = fc.tuple(
    validBodies(OAuthTokenRequestSchema),
    fc.record(
      {
        grant_type: fc.constantFrom(...known),
        client_id: fc.constantFrom("ifttt", "mobile", "nobody", ""),
        redirect_uri: fc.constantFrom(IFTTT_URI, `${IFTTT_URI}/`, ""),
      },
      { requiredKeys: [] },
    ),
  );
  return fc.oneof(
    fields.map(([generated, plausible]) => ({
      payload: new URLSearchParams(
        Object.entries({ ...(generated as object), ...plausible }).map(([k, v]): [string, string] => [
          k,
          String(v),
        ]),
      ).toString(),
      contentType: "application/x-www-form-urlencoded",
    })),
    // Repeated parameters, a bare name, broken escapes, a huge form.
    fc
      .constantFrom(
        "grant_type=authorization_code&grant_type=refresh_token",
        "grant_type",
        "grant_type=%E0%A4%A&code=%",
        `code=${"x".repeat(20_000)}`,
        "=&&=",
      )
      .map((payload) => ({ payload, contentType: "application/x-www-form-urlencoded" })),
  );
}

const basic = fc.oneof(
  fc.constant(undefined),
  fc
    .tuple(fc.constantFrom("ifttt", "mobile", "x:y", ""), fc.string({ maxLength: 80 }))
    .map(([id, secret]) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`),
  fc.constantFrom("Basic", "Basic !!!", "Basic Og==", "Bearer x", `Basic ${"A".repeat(5000)}`),
);

/**
 * RELIABILITY Z1 for the OAuth2 server's body-taking routes: the token endpoint (form and JSON bodies from
 * `OAuthTokenRequestSchema`, with Basic credentials or none) and the consent decision
 * (`OAuthDecisionRequestSchema`). Never a 5xx, every error with `error` and a stable `code`, and no token
 * or grant comes out of it.
 */
describe.each(BACKENDS)("hostile requests on the OAuth routes on %s (Z1)", (backend) => {
  let app: App;
  let user: TestUser;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase(backend), {}, { workJobs: false });
    await resetDatabase(app.ctx.database);
    const { db } = app.ctx.database;
    await registerOAuthClient(db, {
      id: "ifttt",
      name: "IFTTT",
      redirectUris: [IFTTT_URI],
      isPublic: false,
      tokenPolicy: "non_expiring",
    });
    await registerOAuthClient(db, {
      id: "mobile",
      name: "Mobile helper",
      redirectUris: ["https://app.example.com/cb"],
      isPublic: true,
      tokenPolicy: "expiring",
    });
    user = await createTestUser(app.ctx.database);
  });
  afterAll(() => app.close());

  it(
    "answers every token request with < 500 in the RFC 6749 error shape, issuing nothing",
    async () => {
      let n = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(formBodies(), fuzzRequests(OAuthTokenRequestSchema)),
          basic,
          async (body, auth) => {
            n++;
            const res = await app.inject({
              method: "POST",
              url: OAUTH_API.token,
              // A fresh address each time, so the failed-authentication limit does not answer for the parser.
              remoteAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
              headers: { "content-type": body.contentType, ...(auth ? { authorization: auth } : {}) },
              payload: body.payload,
            });
            expectNoServerError(res, describeBody(body));
            expect(res.statusCode, describeBody(body)).toBeGreaterThanOrEqual(400);
            expect(res.headers["cache-control"]).toBe("no-store");
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
      expect(await app.ctx.database.db.select().from(oauthTokens)).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "answers every consent decision body with < 500, granting nothing for a request that does not exist",
    async () => {
      const client = user.client(app);
      const id = fc.oneof(
        fc.uuid(),
        fc.constantFrom("x", "..", "%00", "00000000-0000-0000-0000-000000000000"),
        fc.string({ maxLength: 60 }).map((s) => encodeURIComponent(s) || "x"),
      );
      await fc.assert(
        fc.asyncProperty(id, fuzzRequests(OAuthDecisionRequestSchema), async (requestId, body) => {
          const res = await client.request("POST", OAUTH_API.decision.replace(":id", requestId), {
            payload: body.payload,
            headers: { "content-type": body.contentType },
          });
          expectNoServerError(res, describeBody(body));
          expect(res.statusCode).toBeGreaterThanOrEqual(400);
        }),
        { numRuns: FUZZ_RUNS },
      );
      expect(await app.ctx.database.db.select().from(oauthGrants)).toEqual([]);
    },
    FUZZ_TIMEOUT_MS,
  );
});
