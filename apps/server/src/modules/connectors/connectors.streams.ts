import { z } from "zod";
import { addDays, dayOf } from "./connectors.time.ts";
import type { MappedReading, MappedValue, StreamContext, StreamDef, StreamPage } from "./connectors.types.ts";

/**
 * Shapes of streams most providers share: a range of calendar days or of instants read window by window,
 * each window possibly in several pages. The cursor is where the next read starts (and the page token
 * inside a window); once caught up it steps back by `overlap`, because the latest days are still
 * changing (today's steps grow, a night is scored in the morning): values read again with the same
 * client id and value store nothing.
 */

export type WindowResult = {
  values: MappedValue[];
  readings?: MappedReading[];
  malformed?: number;
  /** The provider's token for the next page of this window, if any. */
  nextPage?: string | null;
};

const DayCursorSchema = z.object({ from: z.iso.date(), page: z.string().max(4096).optional() });
const InstantCursorSchema = z.object({
  from: z.iso.datetime({ offset: true }),
  page: z.string().max(4096).optional(),
});

/** Days `[start, end]` (inclusive, local days in the person's zone), `spanDays` at a time. */
export function dayWindowStream(opts: {
  key: string;
  spanDays: number;
  overlapDays: number;
  read: (ctx: StreamContext, window: { start: string; end: string; page?: string }) => Promise<WindowResult>;
}): StreamDef {
  return {
    key: opts.key,
    async fetchPage(ctx, cursor): Promise<StreamPage> {
      const today = dayOf(ctx.now, ctx.tz);
      const parsed = DayCursorSchema.safeParse(cursor);
      const first = dayOf(ctx.historyStart, ctx.tz);
      let start = parsed.success ? parsed.data.from : first;
      if (start > today) start = today;
      const spanEnd = addDays(start, opts.spanDays - 1);
      const end = spanEnd < today ? spanEnd : today;
      const page = parsed.success ? parsed.data.page : undefined;
      const result = await opts.read(ctx, { start, end, ...(page ? { page } : {}) });
      const base = { values: result.values, readings: result.readings, malformed: result.malformed };
      if (result.nextPage) return { ...base, next: { from: start, page: result.nextPage }, done: false };
      if (end < today) return { ...base, next: { from: addDays(end, 1) }, done: false };
      // Caught up: the next read starts `overlapDays` back (not before the history start).
      const back = addDays(today, -opts.overlapDays);
      return { ...base, next: { from: back > first ? back : first }, done: true };
    },
  };
}

/** Instants `[start, end)`, `spanMs` at a time, up to now. */
export function instantWindowStream(opts: {
  key: string;
  spanMs: number;
  overlapMs: number;
  read: (ctx: StreamContext, window: { start: Date; end: Date; page?: string }) => Promise<WindowResult>;
}): StreamDef {
  return {
    key: opts.key,
    async fetchPage(ctx, cursor): Promise<StreamPage> {
      const parsed = InstantCursorSchema.safeParse(cursor);
      const nowMs = ctx.now.getTime();
      const startMs = Math.min(
        parsed.success ? Date.parse(parsed.data.from) : ctx.historyStart.getTime(),
        nowMs,
      );
      const endMs = Math.min(startMs + opts.spanMs, nowMs);
      const page = parsed.success ? parsed.data.page : undefined;
      const start = new Date(startMs);
      const result = await opts.read(ctx, { start, end: new Date(endMs), ...(page ? { page } : {}) });
      const base = { values: result.values, readings: result.readings, malformed: result.malformed };
      if (result.nextPage)
        return { ...base, next: { from: start.toISOString(), page: result.nextPage }, done: false };
      if (endMs < nowMs) return { ...base, next: { from: new Date(endMs).toISOString() }, done: false };
      const back = Math.max(ctx.historyStart.getTime(), nowMs - opts.overlapMs);
      return { ...base, next: { from: new Date(back).toISOString() }, done: true };
    },
  };
}

/** Each element of `list` read with `schema`; the ones that do not fit are counted, not thrown. */
export function readRecords<T>(schema: z.ZodType<T>, list: unknown): { records: T[]; malformed: number } {
  if (!Array.isArray(list)) return { records: [], malformed: 0 };
  const records: T[] = [];
  let malformed = 0;
  for (const item of list) {
    const parsed = schema.safeParse(item);
    if (parsed.success) records.push(parsed.data);
    else malformed++;
  }
  return { records, malformed };
}

/** A number, or a numeric string as some APIs send int64 and daily totals. */
export const NumberLike = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .transform(Number),
]);

/** An optional numeric field: absent and null both mean "not measured". */
export const OptionalNumber = NumberLike.nullish();

/** The page token a provider answered, if it is a usable one. */
export function pageToken(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= 4096 ? value : null;
}

type Maybe = number | null | undefined;
/** Milliseconds (HRV as providers write it) to seconds (its storage unit). */
export const msToS = (v: Maybe): Maybe => (v === null || v === undefined ? v : v / 1000);
/** Kilocalories to joules (energy's storage unit; 1 kcal = 4,184 J). */
export const kcalToJ = (v: Maybe): Maybe => (v === null || v === undefined ? v : v * 4184);
