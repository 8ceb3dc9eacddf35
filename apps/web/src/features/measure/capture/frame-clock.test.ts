import { describe, expect, it } from "vitest";
import { createFrameClock } from "./frame-clock.ts";

describe("frame clock", () => {
  it("removes delivery jitter, keeps skipped frames' spacing and starts over after a stall", () => {
    const clock = createFrameClock();
    let seed = 7;
    const jitter = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed / 2 ** 31 - 0.5) * 30;
    };
    const errors: number[] = [];
    for (let frame = 0; frame < 600; frame++) {
      if (frame % 7 === 3) continue; // skipped by the page
      const truth = 1000 + (frame * 1000) / 30;
      const steadied = clock.timeOf(frame, truth + jitter());
      if (frame > 60) errors.push(Math.abs(steadied - truth));
    }
    // Raw times are off by up to 15 ms; steadied ones by a few.
    expect(errors.reduce((a, b) => a + b, 0) / errors.length).toBeLessThan(3);
    expect(Math.max(...errors)).toBeLessThan(10);
    // A 2-second stall: the fit starts over from the new times.
    expect(clock.timeOf(700, 1000 + (700 * 1000) / 30 + 2000)).toBeCloseTo(
      1000 + (700 * 1000) / 30 + 2000,
      5,
    );
  });
});
