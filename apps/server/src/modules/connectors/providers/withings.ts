import { createHmac } from "node:crypto";
import type { MetricKey } from "@tonus/contract";
import { z } from "zod";
import { uuidFromName } from "../connectors.crypto.ts";
import { readStandardToken } from "../connectors.oauth.ts";
import { kcalToJ, NumberLike, OptionalNumber, readRecords } from "../connectors.streams.ts";
import { dayNoon, dayOf } from "../connectors.time.ts";
import type {
  BodyVerdict,
  MappedReading,
  MappedValue,
  ProviderDef,
  StreamContext,
  StreamDef,
  StreamPage,
} from "../connectors.types.ts";

/**
 * Withings Public Health Data API. OAuth web flow
 * (https://developer.withings.com/developer-guide/v3/integration-guide/public-health-data-api/get-access/oauth-web-flow):
 * authorize at account.withings.com/oauth2_user/authorize2 (comma-separated scopes), tokens from
 * `POST wbsapi.withings.net/v2/oauth2` with `action=requesttoken` and the client secret, answered as
 * `{status, body}` with the person's `userid`. Every service answers HTTP 200 with its own `status`
 * (0 OK; 401 and 100–102 an invalid token; 601 too many requests). Revocation: `action=revoke` on the
 * same URL, signed with a nonce from `POST /v2/signature action=getnonce` (HMAC-SHA-256 of the sorted
 * values with the client secret). Data (API reference, https://developer.withings.com/api-reference):
 * `Measure - Getmeas` (`/measure`), `Measure v2 - Getactivity` (`/v2/measure`) and `Sleep v2 -
 * Getsummary` (`/v2/sleep`), all incremental with `lastupdate` and paged by `more`/`offset`. The
 * documented limit is 120 requests a minute per app.
 */

const API = "https://wbsapi.withings.net";

/** Getmeas types Tonus reads, to the metric each becomes (value = `value × 10^unit`, in SI already). */
const MEASURE_TYPES: Record<number, MetricKey | "systolic" | "diastolic"> = {
  1: "weight",
  6: "body_fat",
  8: "fat_mass",
  9: "diastolic",
  10: "systolic",
  11: "heart_rate",
  54: "spo2",
  76: "muscle_mass",
  88: "bone_mass",
};

const StatusSchema = z.object({ status: z.number(), body: z.unknown().optional() });

function checkBody(json: unknown): BodyVerdict {
  const parsed = StatusSchema.safeParse(json);
  if (!parsed.success) return { kind: "error", detail: "Withings answered without a status" };
  const { status } = parsed.data;
  if (status === 0) return { kind: "ok" };
  if (status === 401 || (status >= 100 && status <= 102)) return { kind: "auth" };
  // 601: too many requests; Withings sends no Retry-After, its limit is per minute.
  if (status === 601) return { kind: "rate", retryAfterS: 60 };
  return { kind: "error", detail: `Withings status ${status}` };
}

function readToken(json: unknown) {
  const parsed = z
    .object({ status: z.literal(0), body: z.object({ userid: NumberLike.or(z.string()) }).loose() })
    .safeParse(json);
  if (!parsed.success) return null;
  const tokens = readStandardToken(parsed.data.body);
  return tokens && { ...tokens, externalUserId: String(parsed.data.body.userid) };
}

const bodyOf = (json: unknown) => (json as { body?: Record<string, unknown> } | null)?.body ?? {};

/** Cursor of an incremental Withings stream: the `lastupdate` to ask from, or a page of a first read. */
const CursorSchema = z.object({
  lastupdate: z.number().int().optional(),
  offset: z.number().int().min(0).optional(),
  /** The `lastupdate` to continue from once the pages of this read are done. */
  pending: z.number().int().optional(),
});
type Cursor = z.infer<typeof CursorSchema>;

/**
 * One Withings service read incrementally: the first time by date range from the history start, then
 * by `lastupdate` (changed since). `since` is when this read began (less a margin for clock skew), the
 * next read's `lastupdate` when the answer names no `updatetime` of its own.
 */
function withingsStream(opts: {
  key: string;
  path: string;
  action: string;
  params: Record<string, string>;
  range: (ctx: StreamContext) => Record<string, string>;
  map: (ctx: StreamContext, body: Record<string, unknown>) => Omit<StreamPage, "next" | "done">;
}): StreamDef {
  return {
    key: opts.key,
    async fetchPage(ctx, raw) {
      const cursor: Cursor = CursorSchema.safeParse(raw).data ?? {};
      const since = Math.floor(ctx.now.getTime() / 1000) - 3600;
      const form: Record<string, string> = { action: opts.action, ...opts.params };
      if (cursor.lastupdate !== undefined) form.lastupdate = String(cursor.lastupdate);
      else Object.assign(form, opts.range(ctx));
      if (cursor.offset) form.offset = String(cursor.offset);
      const json = await ctx.api.json(ctx.api.url(opts.path), { method: "POST", form });
      const body = bodyOf(json);
      const page = opts.map(ctx, body);
      const updatetime = typeof body.updatetime === "number" ? body.updatetime : since;
      const pending = cursor.pending ?? updatetime;
      const more = body.more === true || body.more === 1;
      const offset = typeof body.offset === "number" ? body.offset : 0;
      if (more && offset > (cursor.offset ?? 0)) {
        const { pending: _p, offset: _o, ...base } = cursor;
        return { ...page, next: { ...base, offset, pending }, done: false };
      }
      return { ...page, next: { lastupdate: pending }, done: true };
    },
  };
}

const MeasureGroupSchema = z.object({
  grpid: NumberLike,
  attrib: z.number().int(),
  date: z.number(),
  measures: z.array(z.object({ value: z.number(), type: z.number().int(), unit: z.number().int() })),
});

const measures = withingsStream({
  key: "measures",
  path: "/measure",
  action: "getmeas",
  params: { meastypes: Object.keys(MEASURE_TYPES).join(","), category: "1" },
  range: (ctx) => ({
    startdate: String(Math.floor(ctx.historyStart.getTime() / 1000)),
    enddate: String(Math.floor(ctx.now.getTime() / 1000)),
  }),
  map(ctx, body) {
    const { records, malformed } = readRecords(MeasureGroupSchema, body.measuregrps);
    const tz = typeof body.timezone === "string" ? body.timezone : ctx.tz;
    const values: MappedValue[] = [];
    const readings: MappedReading[] = [];
    let ambiguous = 0;
    for (const group of records) {
      // attrib 1: a device measure Withings could not attribute to this person (someone else on the scale).
      if (group.attrib === 1) {
        ambiguous += group.measures.length;
        continue;
      }
      const at = new Date(group.date * 1000);
      const byType = new Map<number, number>();
      for (const m of group.measures) byType.set(m.type, m.value * 10 ** m.unit);
      const systolic = byType.get(10);
      const diastolic = byType.get(9);
      if (systolic !== undefined && diastolic !== undefined) {
        // Blood pressure goes to the log, keyed by the measure group so a second sync finds it there.
        readings.push({
          clientId: uuidFromName(`withings:${ctx.externalUserId ?? ""}:${group.grpid}`),
          systolic,
          diastolic,
          pulse: byType.get(11) ?? null,
          measuredAt: at,
          timeZone: tz,
        });
      }
      for (const [type, value] of byType) {
        const metric = MEASURE_TYPES[type];
        if (!metric || metric === "systolic" || metric === "diastolic") continue;
        if (metric === "heart_rate" && systolic !== undefined) continue; // the reading's pulse
        // Keyed by metric and instant, as the rows of Withings' exported CSVs are: stored once either way.
        values.push({
          metric,
          at,
          value,
          clientId: at ? `${metric}:${at.getTime()}` : `measure:${group.grpid}:${type}`,
        });
      }
    }
    const refused: Record<string, number> = ambiguous ? { ambiguous_owner: ambiguous } : {};
    return { values, readings, malformed, refused };
  },
});

const ActivitySchema = z.object({ date: z.iso.date(), steps: OptionalNumber, calories: OptionalNumber });

const activity = withingsStream({
  key: "activity",
  path: "/v2/measure",
  action: "getactivity",
  params: { data_fields: "steps,calories" },
  range: (ctx) => ({ startdateymd: dayOf(ctx.historyStart, ctx.tz), enddateymd: dayOf(ctx.now, ctx.tz) }),
  map(ctx, body) {
    const { records, malformed } = readRecords(ActivitySchema, body.activities);
    const values: MappedValue[] = records.flatMap((r) => {
      const at = dayNoon(r.date, ctx.tz);
      return [
        { metric: "steps", at, value: r.steps, clientId: `activity:${r.date}:steps` },
        // `calories` are the active calories (kcal); `totalcalories` would add the passive ones.
        {
          metric: "active_energy",
          at,
          value: kcalToJ(r.calories),
          clientId: `activity:${r.date}:active_energy`,
        },
      ];
    });
    return { values, malformed };
  },
});

const SleepSchema = z.object({
  id: NumberLike.optional(),
  startdate: z.number(),
  enddate: z.number(),
  data: z.object({ total_sleep_time: OptionalNumber, rr_average: OptionalNumber }).nullish(),
});

const sleep = withingsStream({
  key: "sleep",
  path: "/v2/sleep",
  action: "getsummary",
  params: { data_fields: "total_sleep_time,rr_average" },
  range: (ctx) => ({ startdateymd: dayOf(ctx.historyStart, ctx.tz), enddateymd: dayOf(ctx.now, ctx.tz) }),
  map(_ctx, body) {
    const { records, malformed } = readRecords(SleepSchema, body.series);
    const values: MappedValue[] = records.flatMap((r) => {
      const at = new Date(r.enddate * 1000);
      const key = `sleep:${r.id ?? r.startdate}`;
      return [
        { metric: "sleep", at, value: r.data?.total_sleep_time, clientId: `${key}:sleep` },
        { metric: "respiratory_rate", at, value: r.data?.rr_average, clientId: `${key}:respiratory_rate` },
      ];
    });
    return { values, malformed };
  },
});

const sign = (secret: string, values: string[]) =>
  createHmac("sha256", secret).update(values.join(",")).digest("hex");

export const withings: ProviderDef = {
  key: "withings",
  name: "Withings",
  slug: "withings-body-smart",
  source: "withings",
  hasExportFile: true,
  metrics: [
    "weight",
    "body_fat",
    "fat_mass",
    "muscle_mass",
    "bone_mass",
    "heart_rate",
    "spo2",
    "steps",
    "active_energy",
    "sleep",
    "respiratory_rate",
  ],
  bloodPressure: true,
  endpoints: {
    authorize: "https://account.withings.com/oauth2_user/authorize2",
    token: `${API}/v2/oauth2`,
    api: API,
  },
  scopes: ["user.metrics", "user.activity"],
  scopeSeparator: ",",
  pkce: false,
  clientAuth: "body",
  tokenParams: { action: "requesttoken" },
  readToken,
  checkBody,
  // 120 requests a minute per app: keep one process's requests half a second apart.
  minRequestIntervalMs: 500,
  rateLimitScope: "app",
  async revoke({ credentials, externalUserId, urlOf, fetch }) {
    if (!externalUserId) throw new Error("no Withings user id to revoke");
    const timestamp = String(Math.floor(Date.now() / 1000));
    const post = async (url: URL, form: Record<string, string>) => {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      });
      const json = (await response.json().catch(() => null)) as {
        status?: number;
        body?: { nonce?: string };
      } | null;
      if (json?.status !== 0) throw new Error(`Withings answered status ${json?.status ?? response.status}`);
      return json.body ?? {};
    };
    // Signed values are sorted by key: action, client_id, then timestamp or nonce.
    const { nonce } = await post(urlOf(`${API}/v2/signature`), {
      action: "getnonce",
      client_id: credentials.clientId,
      timestamp,
      signature: sign(credentials.clientSecret, ["getnonce", credentials.clientId, timestamp]),
    });
    if (!nonce) throw new Error("Withings gave no nonce");
    await post(urlOf(`${API}/v2/oauth2`), {
      action: "revoke",
      client_id: credentials.clientId,
      nonce,
      signature: sign(credentials.clientSecret, ["revoke", credentials.clientId, nonce]),
      userid: externalUserId,
    });
  },
  streams: [measures, activity, sleep],
};
