import { z } from "zod";
import { instantWindowStream, NumberLike, pageToken, readRecords } from "../connectors.streams.ts";
import { dayNoon, parseInstant } from "../connectors.time.ts";
import type { MappedValue, ProviderDef, StreamDef } from "../connectors.types.ts";

/**
 * The Google Health API (https://developers.google.com/health), the successor of the Fitbit Web API:
 * the same Fitbit (and Pixel Watch) account data behind Google OAuth 2.0. Authorization with PKCE at
 * accounts.google.com/o/oauth2/v2/auth (`access_type=offline` for a refresh token), tokens at
 * oauth2.googleapis.com/token, revocation `POST oauth2.googleapis.com/revoke`. Scopes are
 * `https://www.googleapis.com/auth/googlehealth.<group>.readonly` (…/migration/api-specifications).
 * Data: `GET https://health.googleapis.com/v4/users/me/dataTypes/{dataType}/dataPoints` with an AIP-160
 * `filter` on the interval's start time, `pageSize` up to 10,000 and `pageToken`/`nextPageToken`
 * (…/reference/rest/v4/users.dataTypes.dataPoints/list). A DataPoint carries one union field; Tonus
 * reads `steps` (`interval.startTime`, `count`, int64 as a string) and `dailyRestingHeartRate` (`date`,
 * `beatsPerMinute`). Only these two: the other data types' JSON fields were not confirmed against the
 * reference when this was written, and a connector must not guess (docs/connectors.md).
 */

const STEPS = z.object({
  steps: z.object({ interval: z.object({ startTime: z.string().max(64) }), count: NumberLike }),
});

/** Steps as minute intervals, summed by the dashboard into days. */
const steps = instantWindowStream({
  key: "steps",
  spanMs: 30 * 86_400_000,
  overlapMs: 86_400_000,
  async read(ctx, { start, end, page }) {
    const filter = `steps.interval.start_time >= "${start.toISOString()}" AND steps.interval.start_time < "${end.toISOString()}"`;
    const body = (await ctx.api.json(
      ctx.api.url("/users/me/dataTypes/steps/dataPoints", { filter, pageSize: 10_000, pageToken: page }),
    )) as { dataPoints?: unknown; nextPageToken?: unknown } | null;
    const { records, malformed } = readRecords(STEPS, body?.dataPoints);
    const values: MappedValue[] = records.map((r) => {
      const at = parseInstant(r.steps.interval.startTime, ctx.tz);
      return {
        metric: "steps",
        at,
        value: r.steps.count,
        clientId: `steps:${at?.toISOString() ?? r.steps.interval.startTime}`,
      };
    });
    return { values, malformed, nextPage: pageToken(body?.nextPageToken) };
  },
});

const RESTING = z.object({
  dailyRestingHeartRate: z.object({
    date: z.object({ year: z.number().int(), month: z.number().int(), day: z.number().int() }),
    beatsPerMinute: NumberLike,
  }),
});

const RestingCursorSchema = z.object({ page: z.string().max(4096) });

/**
 * Daily resting heart rate. The reference documents no date filter for daily types, so the list is
 * read whole (a few hundred points a year) and days before the history start are left out.
 */
const restingHeartRate: StreamDef = {
  key: "daily_resting_heart_rate",
  async fetchPage(ctx, cursor) {
    const page = RestingCursorSchema.safeParse(cursor).data?.page;
    const body = (await ctx.api.json(
      ctx.api.url("/users/me/dataTypes/daily-resting-heart-rate/dataPoints", {
        pageSize: 10_000,
        pageToken: page,
      }),
    )) as { dataPoints?: unknown; nextPageToken?: unknown } | null;
    const { records, malformed } = readRecords(RESTING, body?.dataPoints);
    const values: MappedValue[] = [];
    for (const r of records) {
      const { year, month, day } = r.dailyRestingHeartRate.date;
      const date = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
      const at = dayNoon(date, ctx.tz);
      if (at && at < ctx.historyStart) continue;
      values.push({
        metric: "resting_heart_rate",
        at,
        value: r.dailyRestingHeartRate.beatsPerMinute,
        clientId: `rhr:${date}`,
      });
    }
    const next = pageToken(body?.nextPageToken);
    return { values, malformed, next: next ? { page: next } : {}, done: next === null };
  },
};

const SCOPE = "https://www.googleapis.com/auth/googlehealth";

export const googleHealth: ProviderDef = {
  key: "google_health",
  name: "Google Health",
  slug: "google-pixel-watch",
  // The Fitbit account's data read through its successor API: a Fitbit sub-source, so the person's
  // source order for Fitbit covers it.
  source: "fitbit.google_health",
  hasExportFile: true,
  metrics: ["steps", "resting_heart_rate"],
  bloodPressure: false,
  endpoints: {
    authorize: "https://accounts.google.com/o/oauth2/v2/auth",
    token: "https://oauth2.googleapis.com/token",
    api: "https://health.googleapis.com/v4",
    revoke: "https://oauth2.googleapis.com/revoke",
  },
  scopes: [`${SCOPE}.activity_and_fitness.readonly`, `${SCOPE}.health_metrics_and_measurements.readonly`],
  scopeSeparator: " ",
  pkce: true,
  // offline: a refresh token; consent: Google issues it again on a reconnect.
  authorizeParams: { access_type: "offline", prompt: "consent" },
  clientAuth: "body",
  minRequestIntervalMs: 0,
  rateLimitScope: "person",
  async revoke({ tokens, urlOf, fetch }) {
    const response = await fetch(urlOf(googleHealth.endpoints.revoke ?? ""), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refreshToken ?? tokens.accessToken }).toString(),
    });
    if (!response.ok) throw new Error(`Google answered ${response.status} to the revocation`);
  },
  streams: [steps, restingHeartRate],
};
