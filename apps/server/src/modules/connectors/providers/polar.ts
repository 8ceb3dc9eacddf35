import { z } from "zod";
import { kcalToJ, msToS, OptionalNumber, readRecords } from "../connectors.streams.ts";
import { dayNoon, parseInstant } from "../connectors.time.ts";
import { type MappedValue, type ProviderDef, ProviderError, type StreamDef } from "../connectors.types.ts";

/**
 * Polar AccessLink API v3 (https://www.polar.com/accesslink-api/). OAuth2: authorize at
 * flow.polar.com/oauth2/authorization with scope `accesslink.read_all`, tokens from
 * polarremote.com/v2/oauth2/token with HTTP Basic client authentication. The token does not expire in
 * practice and there is no refresh token; the answer names the person (`x_user_id`). Before any data the
 * person must be registered (`POST /v3/users` with a `member-id`; 409 when already registered);
 * de-registration (`DELETE /v3/users/{user-id}`) revokes the token. Data: `GET /v3/users/sleep` and
 * `/v3/users/nightly-recharge` answer the last 28 days; daily activity is transactional — `POST
 * /v3/users/{user-id}/activity-transactions` opens a transaction of new summaries (204: none), its
 * `activity-log` lists them, and `PUT` on the transaction commits it, after which Polar does not send
 * them again (Polar's example client, polarofficial/accesslink-example-python, does the same).
 */

const API = "https://www.polaraccesslink.com/v3";

const NightSchema = z.object({
  date: z.iso.date(),
  sleep_end_time: z.string(),
  light_sleep: OptionalNumber,
  deep_sleep: OptionalNumber,
  rem_sleep: OptionalNumber,
  unrecognized_sleep_stage: OptionalNumber,
});

/** The last 28 nights, read whole each time: stored ones are skipped. */
const sleep: StreamDef = {
  key: "sleep",
  async fetchPage(ctx) {
    const body = (await ctx.api.json(ctx.api.url("/users/sleep"))) as { nights?: unknown } | null;
    const { records, malformed } = readRecords(NightSchema, body?.nights);
    const values: MappedValue[] = [];
    for (const night of records) {
      const at = parseInstant(night.sleep_end_time, ctx.tz);
      if (at && at < ctx.historyStart) continue;
      const stages = [night.light_sleep, night.deep_sleep, night.rem_sleep, night.unrecognized_sleep_stage];
      const asleepS = stages.some((s) => typeof s === "number")
        ? stages.reduce<number>((a, s) => a + (s ?? 0), 0)
        : null;
      values.push({ metric: "sleep", at, value: asleepS, clientId: `sleep:${night.date}` });
    }
    return { values, malformed, next: { read_at: ctx.now.toISOString() }, done: true };
  },
};

const RechargeSchema = z.object({
  date: z.iso.date(),
  heart_rate_variability_avg: OptionalNumber,
  breathing_rate_avg: OptionalNumber,
});

/** Nightly Recharge: the night's rMSSD (ms) and breathing rate, measured in the first hours of sleep. */
const nightlyRecharge: StreamDef = {
  key: "nightly_recharge",
  async fetchPage(ctx) {
    const body = (await ctx.api.json(ctx.api.url("/users/nightly-recharge"))) as {
      recharges?: unknown;
    } | null;
    const { records, malformed } = readRecords(RechargeSchema, body?.recharges);
    const values: MappedValue[] = [];
    for (const r of records) {
      const at = dayNoon(r.date, ctx.tz);
      if (at && at < ctx.historyStart) continue;
      values.push(
        {
          metric: "rmssd",
          at,
          value: msToS(r.heart_rate_variability_avg),
          clientId: `recharge:${r.date}:rmssd`,
        },
        {
          metric: "respiratory_rate",
          at,
          value: r.breathing_rate_avg,
          clientId: `recharge:${r.date}:respiratory_rate`,
        },
      );
    }
    return { values, malformed, next: { read_at: ctx.now.toISOString() }, done: true };
  },
};

const TransactionSchema = z.object({ "resource-uri": z.string().max(2000) });
const ActivityListSchema = z.object({ "activity-log": z.array(z.string().max(2000)).max(1000) });
const ActivitySchema = z.object({
  date: z.iso.date(),
  "active-steps": OptionalNumber,
  "active-calories": OptionalNumber,
});

/**
 * Daily activity through a transaction: the transaction is committed only after Tonus has committed the
 * summaries, so a sync cut short finds them again in the next transaction. A day's summary can come
 * again with higher totals; it replaces the stored value (same client id).
 */
const activity: StreamDef = {
  key: "activity",
  async fetchPage(ctx) {
    const userId = ctx.externalUserId;
    if (!userId) throw new ProviderError("unexpected_response", "no Polar user id for this connection");
    const opened = await ctx.api.send(
      ctx.api.url(`/users/${encodeURIComponent(userId)}/activity-transactions`),
      {
        method: "POST",
      },
    );
    if (opened.status === 204 || opened.json === null) return { values: [], next: {}, done: true };
    const transaction = TransactionSchema.safeParse(opened.json);
    if (opened.status >= 300 || !transaction.success || !ctx.api.isOwnUrl(transaction.data["resource-uri"]))
      throw new ProviderError("unexpected_response", `Polar answered ${opened.status} opening a transaction`);
    const transactionUrl = new URL(transaction.data["resource-uri"]);
    const listed = ActivityListSchema.safeParse(await ctx.api.json(transactionUrl));
    const links = listed.success ? listed.data["activity-log"] : [];
    const values: MappedValue[] = [];
    let malformed = listed.success ? 0 : 1;
    for (const link of links) {
      if (!ctx.api.isOwnUrl(link)) {
        malformed++;
        continue;
      }
      const summary = ActivitySchema.safeParse(await ctx.api.json(new URL(link)));
      if (!summary.success) {
        malformed++;
        continue;
      }
      const s = summary.data;
      const at = dayNoon(s.date, ctx.tz);
      values.push(
        { metric: "steps", at, value: s["active-steps"], clientId: `activity:${s.date}:steps` },
        {
          metric: "active_energy",
          at,
          value: kcalToJ(s["active-calories"]),
          clientId: `activity:${s.date}:active_energy`,
        },
      );
    }
    return {
      values,
      malformed,
      next: {},
      // More transactions may be waiting: the loop opens the next one until Polar answers 204.
      done: links.length === 0,
      afterCommit: async () => {
        await ctx.api.json(transactionUrl, { method: "PUT" });
      },
    };
  },
};

export const polar: ProviderDef = {
  key: "polar",
  name: "Polar",
  slug: "polar-vantage",
  source: "polar",
  hasExportFile: true,
  metrics: ["sleep", "rmssd", "respiratory_rate", "steps", "active_energy"],
  bloodPressure: false,
  endpoints: {
    authorize: "https://flow.polar.com/oauth2/authorization",
    token: "https://polarremote.com/v2/oauth2/token",
    api: API,
  },
  scopes: ["accesslink.read_all"],
  scopeSeparator: " ",
  pkce: false,
  clientAuth: "basic",
  minRequestIntervalMs: 0,
  rateLimitScope: "app",
  async afterConnect(api, _tokens, memberId) {
    const registered = await api.send(api.url("/users"), { method: "POST", body: { "member-id": memberId } });
    // 409: this person is already registered with this client (a reconnect).
    if (registered.status !== 200 && registered.status !== 201 && registered.status !== 409)
      throw new ProviderError(
        "unexpected_response",
        `Polar answered ${registered.status} to the registration`,
      );
  },
  async revoke({ tokens, externalUserId, urlOf, fetch }) {
    if (!externalUserId) throw new Error("no Polar user id to de-register");
    const response = await fetch(urlOf(`${API}/users/${encodeURIComponent(externalUserId)}`), {
      method: "DELETE",
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    if (!response.ok) throw new Error(`Polar answered ${response.status} to the de-registration`);
  },
  streams: [sleep, nightlyRecharge, activity],
};
