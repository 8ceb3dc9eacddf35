import { z } from "zod";
import { SCHEMA_MESSAGES } from "./messages.ts";

/** An e-mail address as typed; trimmed and lower-cased so one person has one account. */
export const EmailSchema = z
  .string()
  .trim()
  .max(254)
  .transform((v) => v.normalize("NFC").toLowerCase())
  .pipe(z.email({ message: SCHEMA_MESSAGES.email }));

/**
 * Whether PostgreSQL can store the text: its text type cannot hold a NUL character, and a NUL that
 * reached a query would turn a bad request into a 500. For `.refine(isStorable, NOT_STORABLE)`.
 */
export const isStorable = (s: string) => !s.includes("\0");
export const NOT_STORABLE = SCHEMA_MESSAGES.no_nul;

/** Text of at most `max` characters that PostgreSQL can store. */
export const storableText = (max: number) => z.string().max(max).refine(isStorable, NOT_STORABLE);

/** A calendar date `YYYY-MM-DD` (no time, no zone). */
export const IsoDateSchema = z.iso.date();

/** Zone names the runtime accepted (a few hundred exist): building a formatter to check one is slow. */
const knownZones = new Set<string>();
const MAX_KNOWN_ZONES = 2000;

function isTimeZone(tz: string): boolean {
  if (knownZones.has(tz)) return true;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
  } catch {
    return false;
  }
  // Aliases and case variants are accepted too; past the cap a zone is simply checked again.
  if (knownZones.size < MAX_KNOWN_ZONES) knownZones.add(tz);
  return true;
}

/** An IANA time-zone name such as `Europe/Moscow`, checked against the runtime's zone database. */
export const TimeZoneSchema = z.string().min(1).max(64).refine(isTimeZone, SCHEMA_MESSAGES.time_zone);

export const LocaleSchema = z.enum(["en", "ru"]);
export type Locale = z.infer<typeof LocaleSchema>;

/** A simple `{ ok: true }` acknowledgement. */
export const OkSchema = z.object({ ok: z.literal(true) });

/** Texts the server holds in every language (spec §3 "Localized texts are objects keyed by locale"). */
export const LocalizedTextSchema = z.object({ en: z.string(), ru: z.string() });
export type LocalizedText = z.infer<typeof LocalizedTextSchema>;
