import type { MetricKey } from "@tonus/contract";
import { dailyClientId } from "@tonus/importers";
import { z } from "zod";
import {
  dayWindowStream,
  kcalToJ,
  msToS,
  NumberLike,
  OptionalNumber,
  readRecords,
} from "../connectors.streams.ts";
import { dayNoon, localToInstant } from "../connectors.time.ts";
import type { MappedValue, ProviderDef, StreamContext, StreamDef } from "../connectors.types.ts";

/**
 * Fitbit Web API (https://dev.fitbit.com/build/reference/web-api/), the legacy API the Google Health
 * API succeeds. Authorization code flow with PKCE (…/authorization/authorize): authorize at
 * www.fitbit.com/oauth2/authorize, tokens at api.fitbit.com/oauth2/token with HTTP Basic client
 * authentication for server apps, refresh tokens single-use; revocation `POST /oauth2/revoke`
 * (RFC 7009, …/authorization/revoke-token). Data by date range, each with its own longest range:
 * activity time series (steps, activityCalories: 1,095 days), heart rate time series (resting heart
 * rate: 1 year), HRV summary (`dailyRmssd`, 30 days), SpO2 summary (30 days), breathing rate summary
 * (30 days), sleep log v1.2 (100 days), weight log (31 days). Dates and local times are the Fitbit
 * user's own; no `Accept-Language` is sent, so values come in metric units (…/localization).
 * Rate limit: 150 requests an hour per user; `fitbit-rate-limit-remaining`/`-reset` on every answer,
 * 429 with `Retry-After` beyond.
 *
 * Google's notice on the Google Health API reference (developers.google.com/health): support for the
 * legacy Fitbit Web API ends on 2026-09-30 and the API is turned off on 2026-10-30; from that day this
 * connector refuses to connect or sync and the page says so (`retired_on`). Use `google_health`.
 */

type DayRange = { start: string; end: string };
const path = (template: string, { start, end }: DayRange) =>
  template.replace("{s}", start).replace("{e}", end);

const ValueSeriesSchema = z.object({ dateTime: z.iso.date(), value: NumberLike });

/** A `{ "<key>": [{ dateTime, value }] }` activity time series, one daily total per day. */
function activitySeries(opts: {
  key: string;
  resource: string;
  metric: MetricKey;
  convert?: (v: number) => number | null | undefined;
}): StreamDef {
  return dayWindowStream({
    key: opts.key,
    spanDays: 90,
    overlapDays: 2,
    async read(ctx, range) {
      const body = (await ctx.api.json(
        ctx.api.url(path(`/1/user/-/activities/${opts.resource}/date/{s}/{e}.json`, range)),
      )) as Record<string, unknown> | null;
      const { records, malformed } = readRecords(ValueSeriesSchema, body?.[`activities-${opts.resource}`]);
      const values: MappedValue[] = records.map((r) => ({
        metric: opts.metric,
        at: dayNoon(r.dateTime, ctx.tz),
        value: opts.convert ? opts.convert(r.value) : r.value,
        // A daily total: the day's id, which Fitbit's exported daily files also get.
        clientId: dailyClientId(r.dateTime, opts.metric),
      }));
      return { values, malformed };
    },
  });
}

/** A daily summary series `{ "<key>": [{ dateTime, value: {…} }] }` read with `pick`. */
function dailySummary<V>(opts: {
  key: string;
  template: string;
  listKey: string | null;
  spanDays: number;
  value: z.ZodType<V>;
  pick: (value: V) => { metric: MetricKey; value: number | null | undefined }[];
}): StreamDef {
  const schema: z.ZodType<{ dateTime: string; value: V }> = z.object({
    dateTime: z.iso.date(),
    value: opts.value,
  });
  return dayWindowStream({
    key: opts.key,
    spanDays: opts.spanDays,
    overlapDays: 2,
    async read(ctx: StreamContext, range) {
      const body = (await ctx.api.json(ctx.api.url(path(opts.template, range)))) as Record<
        string,
        unknown
      > | null;
      const list = opts.listKey === null ? body : body?.[opts.listKey];
      const { records, malformed } = readRecords(schema, list);
      const values: MappedValue[] = records.flatMap((r) =>
        opts.pick(r.value).map((p) => ({
          ...p,
          at: dayNoon(r.dateTime, ctx.tz),
          clientId: dailyClientId(r.dateTime, p.metric),
        })),
      );
      return { values, malformed };
    },
  });
}

const steps = activitySeries({ key: "steps", resource: "steps", metric: "steps" });
const activeEnergy = activitySeries({
  key: "activity_calories",
  resource: "activityCalories",
  metric: "active_energy",
  convert: kcalToJ,
});

const restingHeartRate = dailySummary({
  key: "heart",
  template: "/1/user/-/activities/heart/date/{s}/{e}.json",
  listKey: "activities-heart",
  spanDays: 90,
  value: z.object({ restingHeartRate: OptionalNumber }),
  pick: (v) => [{ metric: "resting_heart_rate", value: v.restingHeartRate }],
});

const hrv = dailySummary({
  key: "hrv",
  template: "/1/user/-/hrv/date/{s}/{e}.json",
  listKey: "hrv",
  spanDays: 30,
  // dailyRmssd: the main sleep's RMSSD in ms.
  value: z.object({ dailyRmssd: OptionalNumber }),
  pick: (v) => [{ metric: "rmssd", value: msToS(v.dailyRmssd) }],
});

const spo2 = dailySummary({
  key: "spo2",
  template: "/1/user/-/spo2/date/{s}/{e}.json",
  // The range answer is a bare array.
  listKey: null,
  spanDays: 30,
  value: z.object({ avg: OptionalNumber }),
  pick: (v) => [{ metric: "spo2", value: v.avg }],
});

const breathingRate = dailySummary({
  key: "br",
  template: "/1/user/-/br/date/{s}/{e}.json",
  listKey: "br",
  spanDays: 30,
  value: z.object({ breathingRate: OptionalNumber }),
  pick: (v) => [{ metric: "respiratory_rate", value: v.breathingRate }],
});

const SleepSchema = z.object({
  logId: NumberLike,
  endTime: z.string().max(40),
  minutesAsleep: OptionalNumber,
});

const sleep = dayWindowStream({
  key: "sleep",
  spanDays: 30,
  overlapDays: 2,
  async read(ctx, range) {
    const body = (await ctx.api.json(ctx.api.url(path("/1.2/user/-/sleep/date/{s}/{e}.json", range)))) as {
      sleep?: unknown;
    } | null;
    const { records, malformed } = readRecords(SleepSchema, body?.sleep);
    const values: MappedValue[] = records.map((r) => ({
      metric: "sleep",
      // endTime is the Fitbit user's local time without an offset.
      at: localToInstant(r.endTime, ctx.tz),
      value:
        r.minutesAsleep === null || r.minutesAsleep === undefined ? r.minutesAsleep : r.minutesAsleep * 60,
      clientId: `sleep:${r.logId}`,
    }));
    return { values, malformed };
  },
});

const WeightSchema = z.object({
  logId: NumberLike,
  date: z.iso.date(),
  time: z.string().regex(/^\d{2}:\d{2}(:\d{2})?$/),
  weight: OptionalNumber,
  fat: OptionalNumber,
});

const weight = dayWindowStream({
  key: "weight",
  spanDays: 30,
  overlapDays: 2,
  async read(ctx, range) {
    const body = (await ctx.api.json(
      ctx.api.url(path("/1/user/-/body/log/weight/date/{s}/{e}.json", range)),
    )) as {
      weight?: unknown;
    } | null;
    const { records, malformed } = readRecords(WeightSchema, body?.weight);
    const values: MappedValue[] = records.flatMap((r) => {
      const at = localToInstant(`${r.date}T${r.time}`, ctx.tz);
      return [
        { metric: "weight", at, value: r.weight, clientId: `weight:${r.logId}:weight` },
        { metric: "body_fat", at, value: r.fat, clientId: `weight:${r.logId}:body_fat` },
      ];
    });
    return { values, malformed };
  },
});

export const fitbit: ProviderDef = {
  key: "fitbit",
  name: "Fitbit",
  slug: "fitbit-charge",
  source: "fitbit",
  hasExportFile: true,
  retiredOn: "2026-10-30",
  metrics: [
    "steps",
    "active_energy",
    "resting_heart_rate",
    "rmssd",
    "spo2",
    "respiratory_rate",
    "sleep",
    "weight",
    "body_fat",
  ],
  bloodPressure: false,
  endpoints: {
    authorize: "https://www.fitbit.com/oauth2/authorize",
    token: "https://api.fitbit.com/oauth2/token",
    api: "https://api.fitbit.com",
    revoke: "https://api.fitbit.com/oauth2/revoke",
  },
  scopes: ["activity", "heartrate", "sleep", "weight", "oxygen_saturation", "respiratory_rate"],
  scopeSeparator: " ",
  pkce: true,
  clientAuth: "basic",
  minRequestIntervalMs: 0,
  rateLimitScope: "person",
  async revoke({ tokens, credentials, urlOf, fetch }) {
    const response = await fetch(urlOf(fitbit.endpoints.revoke ?? ""), {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ token: tokens.refreshToken ?? tokens.accessToken }).toString(),
    });
    if (!response.ok) throw new Error(`Fitbit answered ${response.status} to the revocation`);
  },
  streams: [steps, activeEnergy, restingHeartRate, hrv, spo2, breathingRate, sleep, weight],
};
