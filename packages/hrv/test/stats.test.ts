import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantileSorted, roundExactHalfUp, SortedWindow } from "../src/rr/stats.ts";

describe("SortedWindow", () => {
  it("gives the same running quantiles as sorting each window", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 30 }),
        (xs, w) => {
          const win = new SortedWindow(w + 1);
          for (let i = 0; i < xs.length; i++) {
            if (i >= w) win.remove(xs[i - w] as number);
            win.add(xs[i] as number);
            const sorted = xs.slice(Math.max(0, i - w + 1), i + 1).sort((a, b) => a - b);
            for (const q of [0.25, 0.5, 0.75]) expect(win.quantile(q)).toBe(quantileSorted(sorted, q));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("roundExactHalfUp", () => {
  it("rounds on the double's exact value, ties up, as the app's MxDMn export does", () => {
    expect(roundExactHalfUp(0.155, 2)).toBe(0.15); // 0.15499999…
    expect(roundExactHalfUp(0.125, 2)).toBe(0.13); // exact tie
    expect(roundExactHalfUp(0.075, 2)).toBe(0.07); // 0.07499999…
    expect(roundExactHalfUp(0.2861111, 2)).toBe(0.29);
  });
});
