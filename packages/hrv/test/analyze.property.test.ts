// Properties of analyzeRr over generated input (fast-check): never throws on any numbers, never emits
// a non-finite number, and keeps the invariants the definitions imply. 200 runs per property by
// default, 5,000 with TONUS_HEAVY.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeRr } from "../src/index.ts";

const RUNS = process.env.TONUS_HEAVY ? 5000 : 200;
const TIMEOUT_MS = process.env.TONUS_HEAVY ? 600_000 : 20_000;

/** Every number anywhere in `value` is finite (JSON would silently turn NaN/Infinity into null). */
function allFinite(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(allFinite);
  if (value && typeof value === "object") return Object.values(value).every(allFinite);
  return true;
}

const anyNumbers = fc.array(
  fc.oneof(
    fc.double(),
    fc.integer({ min: -5000, max: 70000 }),
    fc.constantFrom(Number.NaN, 0, -0, Number.POSITIVE_INFINITY),
  ),
  { maxLength: 400, size: "max" },
);

/** Plausible RR series: a random walk around a resting rhythm with occasional jumps. */
const rrSeries = fc
  .record({
    start: fc.integer({ min: 400, max: 1500 }),
    steps: fc.array(
      fc.oneof(
        { weight: 9, arbitrary: fc.integer({ min: -40, max: 40 }) },
        fc.integer({ min: -400, max: 400 }),
      ),
      {
        minLength: 20,
        maxLength: 400,
        size: "max",
      },
    ),
  })
  .map(({ start, steps }) => {
    let x = start;
    return steps.map((d) => {
      x = Math.min(2000, Math.max(300, x + d));
      return x;
    });
  });

describe("analyzeRr properties", () => {
  it(
    "never throws and emits only finite numbers, whatever the numbers",
    () => {
      fc.assert(
        fc.property(anyNumbers, (xs) => {
          const result = analyzeRr(xs);
          expect(allFinite(result)).toBe(true);
          expect(result.raw === undefined).toBe(result.issues.some((i) => i.code === "too_short"));
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "keeps every index in its range on plausible series",
    () => {
      fc.assert(
        fc.property(rrSeries, (rr) => {
          const result = analyzeRr(rr);
          expect(allFinite(result)).toBe(true);
          for (const m of [result.raw, result.corrected]) {
            if (!m) continue;
            const t = m.timeDomain;
            expect(t.sdnn).toBeGreaterThanOrEqual(0);
            expect(t.rmssd).toBeGreaterThanOrEqual(0);
            expect(t.pnn50Pct).toBeGreaterThanOrEqual(0);
            expect(t.pnn50Pct).toBeLessThanOrEqual(t.pnn20Pct);
            expect(t.min).toBeLessThanOrEqual(t.median);
            expect(t.median).toBeLessThanOrEqual(t.max);
            expect(m.baevsky.amoExactPct).toBeGreaterThan(0);
            expect(m.baevsky.amoExactPct).toBeLessThanOrEqual(100);
            expect(m.baevsky.moS * 1000).toBeGreaterThanOrEqual(t.min - 50);
            expect(m.baevsky.moS * 1000).toBeLessThanOrEqual(t.max + 50);
            expect(m.baevsky.mxdmnTrimmedS).toBeLessThanOrEqual(m.baevsky.mxdmnFullS);
            const f = m.frequency;
            if (f) {
              expect(Math.min(f.vlfMs2, f.lfMs2, f.hfMs2)).toBeGreaterThanOrEqual(0);
              if (f.lfNu !== undefined) expect((f.lfNu ?? 0) + (f.hfNu ?? 0)).toBeCloseTo(100, 6);
            }
          }
          const share = result.artifacts?.share ?? 0;
          expect(share).toBeGreaterThanOrEqual(0);
          expect(share).toBeLessThanOrEqual(1);
          const flagged = (result.artifacts?.flags.length ?? 0) > 0;
          const tooShort = result.issues.some((i) => i.code === "corrected_too_short");
          expect(result.corrected !== undefined).toBe(flagged && !tooShort);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "gives a reversed series the same SDNN, RMSSD and histogram",
    () => {
      fc.assert(
        fc.property(rrSeries, (rr) => {
          const a = analyzeRr(rr).raw;
          const b = analyzeRr([...rr].reverse()).raw;
          expect(b?.timeDomain.sdnn).toBeCloseTo(a?.timeDomain.sdnn ?? 0, 6);
          expect(b?.timeDomain.rmssd).toBeCloseTo(a?.timeDomain.rmssd ?? 0, 6);
          expect(b?.baevsky.moS).toBe(a?.baevsky.moS);
          expect(b?.baevsky.amoExactPct).toBe(a?.baevsky.amoExactPct);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    "leaves SDNN and RMSSD unchanged when every interval is shifted by the same amount",
    () => {
      fc.assert(
        fc.property(rrSeries, fc.integer({ min: 0, max: 300 }), (rr, shift) => {
          const a = analyzeRr(rr).raw?.timeDomain;
          const b = analyzeRr(rr.map((x) => x + shift)).raw?.timeDomain;
          expect(b?.sdnn).toBeCloseTo(a?.sdnn ?? 0, 6);
          expect(b?.rmssd).toBeCloseTo(a?.rmssd ?? 0, 6);
          expect(b?.meanRr).toBeCloseTo((a?.meanRr ?? 0) + shift, 6);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );
});
