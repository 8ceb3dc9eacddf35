import { z } from "zod";
import { instantWindowStream, msToS, OptionalNumber, pageToken, readRecords } from "../connectors.streams.ts";
import { parseInstant } from "../connectors.time.ts";
import type { MappedValue, ProviderDef, StreamContext } from "../connectors.types.ts";

/**
 * WHOOP API v2. OAuth 2.0 (https://developer.whoop.com/docs/developing/oauth): authorize at
 * api.prod.whoop.com/oauth/oauth2/auth, tokens at …/oauth/oauth2/token with the client credentials in
 * the body; the `offline` scope yields a refresh token, and a refresh names `scope=offline` again; the
 * state must be at least 8 characters. Revocation: `DELETE /developer/v2/user/access` with the user's
 * token (revokeUserOauthAccess, API changelog 2023-02-01). Data (https://developer.whoop.com/api):
 * `GET /developer/v2/recovery` and `/developer/v2/activity/sleep` filtered by `start`/`end`, at most
 * 25 records a page (`limit`), paged by `nextToken`/`next_token`. Rate limits
 * (https://developer.whoop.com/docs/developing/rate-limiting): 100 requests a minute and 10,000 a day
 * per app, 429 beyond, with `X-RateLimit-Remaining`/`-Reset` on every answer.
 */

const list = (ctx: StreamContext, path: string, window: { start: Date; end: Date; page?: string }) =>
  ctx.api.json(
    ctx.api.url(path, {
      start: window.start.toISOString(),
      end: window.end.toISOString(),
      limit: 25,
      nextToken: window.page,
    }),
  ) as Promise<{ records?: unknown; next_token?: unknown } | null>;

const RecoverySchema = z.object({
  sleep_id: z.union([z.string(), z.number()]),
  created_at: z.string(),
  score_state: z.string(),
  score: z
    .object({
      resting_heart_rate: OptionalNumber,
      hrv_rmssd_milli: OptionalNumber,
      spo2_percentage: OptionalNumber,
      skin_temp_celsius: OptionalNumber,
    })
    .nullish(),
});

/** Recovery: scored after the night, keyed by its sleep (v2 ids are the sleep's UUID). */
const recovery = instantWindowStream({
  key: "recovery",
  spanMs: 90 * 86_400_000,
  overlapMs: 2 * 86_400_000,
  async read(ctx, window) {
    const body = await list(ctx, "/v2/recovery", window);
    const { records, malformed } = readRecords(RecoverySchema, body?.records);
    const values: MappedValue[] = [];
    for (const r of records) {
      // PENDING_SCORE and UNSCORABLE recoveries carry no values (yet); a later sync reads them again.
      if (r.score_state !== "SCORED" || !r.score) continue;
      const at = parseInstant(r.created_at, ctx.tz);
      const key = `recovery:${r.sleep_id}`;
      values.push(
        { metric: "resting_heart_rate", at, value: r.score.resting_heart_rate, clientId: `${key}:rhr` },
        { metric: "rmssd", at, value: msToS(r.score.hrv_rmssd_milli), clientId: `${key}:rmssd` },
        { metric: "spo2", at, value: r.score.spo2_percentage, clientId: `${key}:spo2` },
        {
          metric: "skin_temperature",
          at,
          value: r.score.skin_temp_celsius,
          clientId: `${key}:skin_temperature`,
        },
      );
    }
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

const SleepSchema = z.object({
  id: z.union([z.string(), z.number()]),
  end: z.string(),
  score_state: z.string(),
  score: z
    .object({
      stage_summary: z
        .object({
          total_light_sleep_time_milli: OptionalNumber,
          total_slow_wave_sleep_time_milli: OptionalNumber,
          total_rem_sleep_time_milli: OptionalNumber,
        })
        .nullish(),
      respiratory_rate: OptionalNumber,
    })
    .nullish(),
});

const sleep = instantWindowStream({
  key: "sleep",
  spanMs: 90 * 86_400_000,
  overlapMs: 2 * 86_400_000,
  async read(ctx, window) {
    const body = await list(ctx, "/v2/activity/sleep", window);
    const { records, malformed } = readRecords(SleepSchema, body?.records);
    const values: MappedValue[] = [];
    for (const r of records) {
      if (r.score_state !== "SCORED" || !r.score) continue;
      const at = parseInstant(r.end, ctx.tz);
      const stages = r.score.stage_summary;
      // Time asleep is the sum of the sleep stages (time in bed less awake and no-data time).
      const asleepMs = stages
        ? (stages.total_light_sleep_time_milli ?? 0) +
          (stages.total_slow_wave_sleep_time_milli ?? 0) +
          (stages.total_rem_sleep_time_milli ?? 0)
        : null;
      values.push(
        { metric: "sleep", at, value: msToS(asleepMs), clientId: `sleep:${r.id}:sleep` },
        {
          metric: "respiratory_rate",
          at,
          value: r.score.respiratory_rate,
          clientId: `sleep:${r.id}:respiratory_rate`,
        },
      );
    }
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

export const whoop: ProviderDef = {
  key: "whoop",
  name: "WHOOP",
  slug: "whoop",
  source: "whoop",
  hasExportFile: true,
  metrics: ["resting_heart_rate", "rmssd", "spo2", "skin_temperature", "sleep", "respiratory_rate"],
  bloodPressure: false,
  endpoints: {
    authorize: "https://api.prod.whoop.com/oauth/oauth2/auth",
    token: "https://api.prod.whoop.com/oauth/oauth2/token",
    api: "https://api.prod.whoop.com/developer",
  },
  scopes: ["offline", "read:recovery", "read:sleep"],
  scopeSeparator: " ",
  pkce: false,
  clientAuth: "body",
  refreshParams: { scope: "offline" },
  // 100 requests a minute for the whole app: keep one process's requests 0.6 s apart.
  minRequestIntervalMs: 600,
  rateLimitScope: "app",
  async revoke({ tokens, urlOf, fetch }) {
    const response = await fetch(urlOf("https://api.prod.whoop.com/developer/v2/user/access"), {
      method: "DELETE",
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    if (!response.ok) throw new Error(`WHOOP answered ${response.status} to the revocation`);
  },
  streams: [recovery, sleep],
};
