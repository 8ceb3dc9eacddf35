import { dailyClientId } from "@tonus/importers";
import { z } from "zod";
import {
  dayWindowStream,
  instantWindowStream,
  kcalToJ,
  msToS,
  OptionalNumber,
  pageToken,
  readRecords,
} from "../connectors.streams.ts";
import { addDays, dayNoon, dayOf, parseInstant } from "../connectors.time.ts";
import type { MappedValue, ProviderDef, StreamContext } from "../connectors.types.ts";

/**
 * Oura API v2. OAuth2 server-side flow, scopes and token URLs: https://cloud.ouraring.com/docs/authentication
 * (authorize at cloud.ouraring.com/oauth/authorize, tokens at api.ouraring.com/oauth/token, client
 * credentials in the body, refresh tokens single-use; revocation `GET /oauth/revoke?access_token=`).
 * Data: the v2 OpenAPI (https://cloud.ouraring.com/v2/docs): `/v2/usercollection/{sleep,daily_activity,
 * daily_spo2}` by `start_date`/`end_date`, `/v2/usercollection/heartrate` by `start_datetime`/
 * `end_datetime` (at most 30 days a request), each paged by `next_token`. Rate limit: 5,000 requests per
 * 5 minutes per token, answered with 429 beyond it.
 */

const list = (ctx: StreamContext, path: string, query: Record<string, string | undefined>) =>
  ctx.api.json(ctx.api.url(path, query)) as Promise<{ data?: unknown; next_token?: unknown } | null>;

const SleepSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().nullish(),
  day: z.iso.date().nullish(),
  bedtime_end: z.string(),
  total_sleep_duration: OptionalNumber,
  average_hrv: OptionalNumber,
  lowest_heart_rate: OptionalNumber,
  average_breath: OptionalNumber,
});

/** Sleep periods: a nap counts toward the day's sleep; only the main sleep gives the resting heart rate. */
const sleep = dayWindowStream({
  key: "sleep",
  spanDays: 30,
  overlapDays: 2,
  async read(ctx, { start, end, page }) {
    // end_date is asked one day later so a period is found whichever end the API counts inclusively.
    const body = await list(ctx, "/v2/usercollection/sleep", {
      start_date: start,
      end_date: addDays(end, 1),
      next_token: page,
    });
    const { records, malformed } = readRecords(SleepSchema, body?.data);
    const values: MappedValue[] = [];
    for (const r of records) {
      if (r.type === "deleted" || r.type === "rest") continue;
      const at = parseInstant(r.bedtime_end, ctx.tz);
      // The main sleep is the day's (Oura's `day`), as the trends export names it: the same ids, stored
      // once whichever route brings them. A nap keeps its own.
      const day = r.type === "long_sleep" ? (r.day ?? (at ? dayOf(at, ctx.tz) : null)) : null;
      const id = (metric: string, own: string) => (day ? dailyClientId(day, metric) : `sleep:${r.id}:${own}`);
      values.push({ metric: "sleep", at, value: r.total_sleep_duration, clientId: id("sleep", "sleep") });
      // average_hrv is the night's rMSSD in ms (Oura's HRV is RMSSD); stored in seconds.
      values.push({ metric: "rmssd", at, value: msToS(r.average_hrv), clientId: id("rmssd", "rmssd") });
      // Documented as "breaths/second", but the values (~15) are breaths per minute, as the app shows.
      values.push({
        metric: "respiratory_rate",
        at,
        value: r.average_breath,
        clientId: id("respiratory_rate", "respiratory_rate"),
      });
      if (r.type === "long_sleep")
        values.push({
          metric: "resting_heart_rate",
          at,
          value: r.lowest_heart_rate,
          clientId: id("resting_heart_rate", "rhr"),
        });
    }
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

const ActivitySchema = z.object({
  day: z.iso.date(),
  steps: OptionalNumber,
  active_calories: OptionalNumber,
});

const dailyActivity = dayWindowStream({
  key: "daily_activity",
  spanDays: 30,
  overlapDays: 2,
  async read(ctx, { start, end, page }) {
    const body = await list(ctx, "/v2/usercollection/daily_activity", {
      start_date: start,
      end_date: addDays(end, 1),
      next_token: page,
    });
    const { records, malformed } = readRecords(ActivitySchema, body?.data);
    const values: MappedValue[] = records.flatMap((r) => {
      const at = dayNoon(r.day, ctx.tz);
      return [
        // Daily totals keep the day's ids, which the trends export's rows also get.
        { metric: "steps", at, value: r.steps, clientId: dailyClientId(r.day, "steps") },
        {
          metric: "active_energy",
          at,
          value: kcalToJ(r.active_calories),
          clientId: dailyClientId(r.day, "active_energy"),
        },
      ];
    });
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

const Spo2Schema = z.object({
  day: z.iso.date(),
  spo2_percentage: z.object({ average: OptionalNumber }).nullish(),
});

const dailySpo2 = dayWindowStream({
  key: "daily_spo2",
  spanDays: 30,
  overlapDays: 2,
  async read(ctx, { start, end, page }) {
    const body = await list(ctx, "/v2/usercollection/daily_spo2", {
      start_date: start,
      end_date: addDays(end, 1),
      next_token: page,
    });
    const { records, malformed } = readRecords(Spo2Schema, body?.data);
    const values: MappedValue[] = records.map((r) => ({
      metric: "spo2",
      at: dayNoon(r.day, ctx.tz),
      value: r.spo2_percentage?.average,
      clientId: dailyClientId(r.day, "spo2"),
    }));
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

const HeartRateSchema = z.object({ bpm: OptionalNumber, timestamp: z.string().min(1).max(64) });

const heartRate = instantWindowStream({
  key: "heartrate",
  spanMs: 30 * 86_400_000,
  overlapMs: 3_600_000,
  async read(ctx, { start, end, page }) {
    const body = await list(ctx, "/v2/usercollection/heartrate", {
      start_datetime: start.toISOString(),
      end_datetime: end.toISOString(),
      next_token: page,
    });
    const { records, malformed } = readRecords(HeartRateSchema, body?.data);
    const values: MappedValue[] = records.map((r) => {
      const at = parseInstant(r.timestamp, ctx.tz);
      return {
        metric: "heart_rate",
        at,
        value: r.bpm,
        clientId: `heartrate:${at?.toISOString() ?? r.timestamp}`,
      };
    });
    return { values, malformed, nextPage: pageToken(body?.next_token) };
  },
});

export const oura: ProviderDef = {
  key: "oura",
  name: "Oura",
  slug: "oura-ring",
  source: "oura",
  hasExportFile: true,
  metrics: [
    "sleep",
    "rmssd",
    "resting_heart_rate",
    "respiratory_rate",
    "steps",
    "active_energy",
    "spo2",
    "heart_rate",
  ],
  bloodPressure: false,
  endpoints: {
    authorize: "https://cloud.ouraring.com/oauth/authorize",
    token: "https://api.ouraring.com/oauth/token",
    api: "https://api.ouraring.com",
    revoke: "https://api.ouraring.com/oauth/revoke",
  },
  scopes: ["daily", "heartrate", "spo2Daily"],
  scopeSeparator: " ",
  pkce: false,
  clientAuth: "body",
  minRequestIntervalMs: 0,
  rateLimitScope: "person",
  async revoke({ tokens, urlOf, fetch }) {
    const url = urlOf(oura.endpoints.revoke ?? "");
    url.searchParams.set("access_token", tokens.accessToken);
    const response = await fetch(url, { method: "GET" });
    if (!response.ok) throw new Error(`Oura answered ${response.status} to the revocation`);
  },
  streams: [sleep, dailyActivity, dailySpo2, heartRate],
};
