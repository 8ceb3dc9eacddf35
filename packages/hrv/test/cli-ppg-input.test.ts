import { describe, expect, it } from "vitest";
import { readPpgText } from "../bin/ppg-input.ts";

describe("readPpgText", () => {
  it("spaces headerless samples by --fs", () => {
    expect(readPpgText("1\n2\n3\n", 50)).toEqual({ values: [1, 2, 3], timesMs: [0, 20, 40] });
  });

  it("reads a time column named with its unit, in any column order", () => {
    expect(readPpgText("time_ms,red\n0,5\n33.3,6\n", undefined)).toEqual({
      values: [5, 6],
      timesMs: [0, 33.3],
    });
    expect(readPpgText("red;t (s)\n5;0\n6;0.5\n", undefined)).toEqual({ values: [5, 6], timesMs: [0, 500] });
  });

  it("detects seconds from a step below 1 and milliseconds otherwise", () => {
    expect(readPpgText("t,v\n0,1\n0.033,2\n", undefined)).toMatchObject({ timesMs: [0, 33] });
    expect(readPpgText("timestamp v\n1000 1\n1033 2\n", undefined)).toMatchObject({ timesMs: [1000, 1033] });
  });

  it("names the line of a bad value and asks for --fs without a time column", () => {
    expect(readPpgText("ppg\n1\nx\n", 30)).toEqual({ error: 'line 3: not a number: "x"' });
    expect(readPpgText("ppg\n1\n2\n", undefined)).toEqual({
      error: "no time column: give the sample rate with --fs HZ",
    });
    expect(readPpgText("\n\n", 30)).toEqual({ error: "no samples" });
  });
});
