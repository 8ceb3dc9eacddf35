// Attribute values read straight from the export's bytes: numbers, dates, and a small cache that hands
// out the same string for the same bytes. Each gives exactly what the decoded value would have given
// (`Number(text)`, `parseHealthDate(text)`); the byte paths only skip the decoding where that is sure.
import { parseHealthDate } from "./types-map.ts";
import { decodeBytes } from "./xml-scanner.ts";

/** Powers of ten a double holds exactly (up to 1e22). */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * `Number(text)` of the value `b[start, end)`. Plain decimals of at most 15 digits (what exports
 * write) are read from the bytes: an integer below 2^53 divided by an exact power of ten rounds
 * correctly, so it is the double `Number` gives. Anything else (whitespace, exponents, entities,
 * `Infinity`, hex) is decoded and left to `Number`.
 */
export function parseNumberAt(b: Uint8Array, start: number, end: number): number {
  let i = start;
  const negative = b[i] === 45;
  if (negative) i++;
  let mantissa = 0;
  let digits = 0;
  let fraction = -1;
  for (; i < end; i++) {
    const c = b[i] as number;
    if (c === 46 && fraction < 0 && digits > 0) {
      fraction = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return Number(decodeBytes(b, start, end));
    mantissa = mantissa * 10 + d;
    digits++;
    if (fraction >= 0) fraction++;
  }
  if (digits === 0 || digits > 15 || fraction === 0) return Number(decodeBytes(b, start, end));
  const value = fraction > 0 ? mantissa / (POW10[fraction] as number) : mantissa;
  return negative ? -value : value;
}

/**
 * `parseHealthDate` of the value `b[start, end)` (`2023-01-05 07:30:00 +0100` → ms UTC, NaN when it is
 * not one), remembering the last day's start so most dates cost no `Date.UTC`. A byte that is not
 * ASCII where the text form would look (characters and bytes then part ways) takes the text path.
 */
export class HealthDateReader {
  private lastDayKey = -1;
  private lastDayMs = 0;

  parse(b: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length < 19) return Number.NaN;
    const year = pair(b, start) * 100 + pair(b, start + 2);
    const month = pair(b, start + 5);
    const day = pair(b, start + 8);
    const hour = pair(b, start + 11);
    const minute = pair(b, start + 14);
    const second = pair(b, start + 17);
    let offsetMin = 0;
    if (length >= 25) {
      const c = b[start + 20];
      const sign = c === 45 ? -1 : c === 43 ? 1 : Number.NaN;
      offsetMin = sign * (pair(b, start + 21) * 60 + pair(b, start + 23));
    }
    // The bytes `parseHealthDate` does not check (separators it skips, what follows the seconds) must be
    // ASCII, or the text form's characters would not be these bytes.
    let unchecked = (b[start + 10] as number) | (b[start + 16] as number);
    for (let i = 19; i < Math.min(length, 25); i++) unchecked |= b[start + i] as number;
    if (
      Number.isNaN(year + month + day + hour + minute + second + offsetMin) ||
      month < 1 ||
      month > 12 ||
      day < 1 ||
      day > 31 ||
      hour > 23 ||
      minute > 59 ||
      second > 60 ||
      b[start + 4] !== 45 ||
      b[start + 7] !== 45 ||
      b[start + 13] !== 58 ||
      unchecked >= 0x80
    ) {
      // Rare: answered by the text form, so that every odd case is decided in one place.
      return parseHealthDate(decodeBytes(b, start, end));
    }
    const dayKey = year * 10000 + month * 100 + day;
    if (dayKey !== this.lastDayKey) {
      this.lastDayKey = dayKey;
      this.lastDayMs = Date.UTC(year, month - 1, day);
    }
    return this.lastDayMs + ((hour * 60 + minute - offsetMin) * 60 + second) * 1000;
  }
}

/** The two-digit number at `b[at]`, or NaN. */
function pair(b: Uint8Array, at: number): number {
  const tens = (b[at] as number) - 48;
  const ones = (b[at + 1] as number) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : Number.NaN;
}

/** One value of a {@link ByteCache}: its bytes, its decoded raw text, and what the cache's user made of it. */
export type CachedValue<T> = { bytes: Uint8Array; raw: string; data: T };

/**
 * The same entry for the same bytes, so a value repeated record after record (a type, a unit, a source)
 * is decoded and looked up once: a table of `size` slots by hash (a new value takes its slot's place,
 * so memory stays bounded whatever the file holds), and the last entry answered first.
 */
export class ByteCache<T> {
  private readonly slots: (CachedValue<T> | undefined)[];
  private readonly mask: number;
  private last: CachedValue<T> | undefined;
  private readonly make: (raw: string) => T;

  /** `size`: a power of two; `make` turns a new value's raw text into its data. */
  constructor(size: number, make: (raw: string) => T) {
    this.slots = new Array(size);
    this.mask = size - 1;
    this.make = make;
  }

  get(b: Uint8Array, start: number, end: number): CachedValue<T> {
    const last = this.last;
    if (last && same(last.bytes, b, start, end)) return last;
    // A hash of the length and a few bytes, the last ones most (the values that repeat differ at their
    // end: `…HeartRate`, `…StepCount`, `software:17.1>`): the comparison then decides.
    const n = end - start;
    let h = Math.imul(n, 0x9e3779b1);
    if (n > 0) {
      h = Math.imul(h ^ (b[start] as number), 0x01000193);
      h = Math.imul(h ^ (b[start + (n >> 1)] as number), 0x01000193);
      for (let i = Math.max(start, end - 6); i < end; i++) h = Math.imul(h ^ (b[i] as number), 0x01000193);
    }
    const slot = (h ^ (h >>> 15)) & this.mask;
    let entry = this.slots[slot];
    if (!entry || !same(entry.bytes, b, start, end)) {
      const raw = decodeBytes(b, start, end);
      entry = { bytes: b.slice(start, end), raw, data: this.make(raw) };
      this.slots[slot] = entry;
    }
    this.last = entry;
    return entry;
  }
}

/** True when `bytes` are `b[start, end)`, compared from the end (where repeated values differ). */
function same(bytes: Uint8Array, b: Uint8Array, start: number, end: number): boolean {
  if (bytes.length !== end - start) return false;
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] !== b[start + i]) return false;
  return true;
}
