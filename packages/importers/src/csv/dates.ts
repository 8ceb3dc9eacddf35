// Dates as CSV exports write them: ISO 8601 (with or without zone, `T` or space), `mm/dd/yy[yy]` (US
// Fitbit), `dd.mm.yyyy` and `dd/mm/yyyy` (European spreadsheets), each with an optional time and AM/PM.

/** How a date column is written. `auto` decides per value and leaves `d/d/y` with both parts ≤ 12 open. */
export type DateFormat = "auto" | "iso" | "mdy" | "dmy";

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2}|UTC|GMT)?$/i;
const DAY_FIRST_OR_MONTH_FIRST =
  /^(\d{1,2})([./-])(\d{1,2})\2(\d{2}|\d{4})(?:[ T,]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,3}))?)?\s*([AaPp][Mm])?)?$/;

/** Parses `UTC+0300`, `UTC+03:00`, `+01:00`, `-0500`, `Z` to minutes east of UTC; undefined if not one. */
export function parseOffsetMinutes(s: string): number | undefined {
  const m = /^(?:UTC|GMT)?\s*([+-])(\d{1,2}):?(\d{2})?$/i.exec(s.trim());
  if (!m) return /^(Z|UTC|GMT)$/i.test(s.trim()) ? 0 : undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === "-" ? -minutes : minutes;
}

function utc(
  y: number,
  mo: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
  offsetMin: number,
): number {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return Number.NaN;
  const t = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  // Date.UTC rolls 31 February into March: refuse dates that do not exist.
  if (new Date(t).getUTCDate() !== d) return Number.NaN;
  return t - offsetMin * 60000;
}

/** Which order a `a/b/y` value must be in: `mdy`, `dmy`, or `either` when both parts are ≤ 12. */
export function slashOrder(s: string): "mdy" | "dmy" | "either" | undefined {
  const m = DAY_FIRST_OR_MONTH_FIRST.exec(s.trim());
  if (!m) return undefined;
  if (m[2] === ".") return "dmy";
  const a = Number(m[1]);
  const b = Number(m[3]);
  if (a > 12) return "dmy";
  if (b > 12) return "mdy";
  return "either";
}

/** True when `s` names a calendar day without a time of day (`2024-03-01`, `03/01/2024`): a daily value. */
export function isDateOnly(s: string): boolean {
  const t = s.trim();
  const iso = ISO.exec(t);
  if (iso) return iso[4] === undefined && iso[8] === undefined;
  const m = DAY_FIRST_OR_MONTH_FIRST.exec(t);
  return m !== null && m[5] === undefined;
}

/**
 * Parses `s` to ms UTC; NaN when it is not a date in `format` (or is ambiguous under `auto`). A value
 * without a zone is local time at `offsetMin` minutes east of UTC (0: UTC).
 */
export function parseDateTime(s: string, format: DateFormat = "auto", offsetMin = 0): number {
  const t = s.trim();
  const iso = format === "auto" || format === "iso" ? ISO.exec(t) : null;
  if (iso) {
    const zone = iso[8] === undefined ? offsetMin : parseOffsetMinutes(iso[8]);
    if (zone === undefined) return Number.NaN;
    const ms = iso[7] ? Math.round(Number(`0.${iso[7]}`) * 1000) : 0;
    return utc(
      +(iso[1] as string),
      +(iso[2] as string),
      +(iso[3] as string),
      +(iso[4] ?? 0),
      +(iso[5] ?? 0),
      +(iso[6] ?? 0),
      ms,
      zone,
    );
  }
  if (format === "iso") return Number.NaN;
  const m = DAY_FIRST_OR_MONTH_FIRST.exec(t);
  if (!m) return Number.NaN;
  let order = format;
  if (order === "auto") {
    const o = slashOrder(t);
    if (o === "either" || o === undefined) return Number.NaN;
    order = o;
  }
  if (m[2] === "." && order === "mdy") return Number.NaN;
  const a = Number(m[1]);
  const b = Number(m[3]);
  let year = Number(m[4]);
  if ((m[4] as string).length === 2) year += year < 70 ? 2000 : 1900;
  let hour = Number(m[5] ?? 0);
  const ampm = m[9]?.toLowerCase();
  if (ampm) {
    if (hour < 1 || hour > 12) return Number.NaN;
    hour = (hour % 12) + (ampm === "pm" ? 12 : 0);
  }
  const ms = m[8] ? Math.round(Number(`0.${m[8]}`) * 1000) : 0;
  const [month, day] = order === "mdy" ? [a, b] : [b, a];
  return utc(year, month, day, hour, Number(m[6] ?? 0), Number(m[7] ?? 0), ms, offsetMin);
}
