import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DISPLAY_UNITS,
  type DisplayUnit,
  displayUnitOf,
  ENERGY_UNITS,
  entryUnitsOf,
  fromDisplayUnit,
  METRIC_KEYS,
  METRICS,
  toDisplayUnit,
} from "./dashboard-metrics.ts";

const UNITS = Object.keys(DISPLAY_UNITS) as DisplayUnit[];
const RUNS = process.env.TONUS_HEAVY ? 10_000 : 300;

// RELIABILITY Z2: unit conversions round-trip within 0.01 for every unit the dashboard shows or takes.
describe("display units", () => {
  it.each(UNITS)("round-trips %s through storage within 0.01", (unit) => {
    fc.assert(
      fc.property(fc.double({ min: -100_000, max: 100_000, noNaN: true }), (shown) => {
        const stored = fromDisplayUnit(shown, unit);
        expect(Math.abs(toDisplayUnit(stored, unit) - shown)).toBeLessThan(0.01);
      }),
      { numRuns: RUNS },
    );
  });

  it("converts between the units a person may mix, within 0.01 both ways", () => {
    const pairs: [DisplayUnit, DisplayUnit][] = [
      ["kg", "lb"],
      ["cm", "in"],
      ["cm", "ft"],
      ["in", "ft"],
      ["l", "fl_oz"],
      ["ml", "fl_oz"],
      ["l", "ml"],
      ["g", "oz"],
      ["km", "mi"],
      ["m", "km"],
      ["celsius", "fahrenheit"],
      ["kcal", "kj"],
      ["h", "min"],
    ];
    for (const [a, b] of pairs)
      fc.assert(
        fc.property(fc.double({ min: 0, max: 10_000, noNaN: true }), (inA) => {
          const inB = toDisplayUnit(fromDisplayUnit(inA, a), b);
          const back = toDisplayUnit(fromDisplayUnit(inB, b), a);
          expect(Math.abs(back - inA), `${a}→${b}→${a} ${inA}`).toBeLessThan(0.01);
        }),
        { numRuns: RUNS },
      );
  });

  it("matches the reference conversions", () => {
    const convert = (value: number, from: DisplayUnit, to: DisplayUnit) =>
      toDisplayUnit(fromDisplayUnit(value, from), to);
    expect(convert(80, "kg", "lb")).toBeCloseTo(176.37, 2);
    expect(convert(180, "cm", "in")).toBeCloseTo(70.866, 3);
    expect(convert(72, "in", "cm")).toBeCloseTo(182.88, 6);
    expect(convert(6, "ft", "in")).toBeCloseTo(72, 9);
    expect(convert(1, "l", "fl_oz")).toBeCloseTo(33.814, 3);
    expect(convert(250, "ml", "l")).toBeCloseTo(0.25, 9);
    expect(convert(100, "g", "oz")).toBeCloseTo(3.5274, 4);
    expect(convert(10, "km", "mi")).toBeCloseTo(6.2137, 4);
    expect(convert(1500, "m", "km")).toBeCloseTo(1.5, 9);
    expect(convert(37, "celsius", "fahrenheit")).toBeCloseTo(98.6, 9);
    expect(convert(1, "kcal", "kj")).toBeCloseTo(4.184, 9);
    expect(convert(90, "min", "h")).toBeCloseTo(1.5, 9);
  });
});

describe("metric entry units", () => {
  it("takes every metric's entry units and shows the value again in each within 0.01 (Z2)", () => {
    const metric = fc.constantFrom(...METRIC_KEYS);
    fc.assert(
      fc.property(metric, fc.double({ min: 0, max: 1, noNaN: true }), fc.nat(), (key, share, pick) => {
        const [min, max] = METRICS[key].range;
        const stored = min + (max - min) * share;
        const units = entryUnitsOf(key);
        const typedIn = units[pick % units.length] as DisplayUnit;
        // Typed in one unit, stored, shown in every display unit of the metric and typed back in.
        const typed = toDisplayUnit(stored, typedIn);
        const storedAgain = fromDisplayUnit(typed, typedIn);
        for (const system of ["metric", "imperial"] as const)
          for (const energy of ENERGY_UNITS) {
            const shownIn = displayUnitOf(key, system, energy);
            expect(units, `${key} ${shownIn}`).toContain(shownIn);
            const shown = toDisplayUnit(storedAgain, shownIn);
            const back = toDisplayUnit(fromDisplayUnit(shown, shownIn), typedIn);
            expect(Math.abs(back - typed), `${key} ${typedIn}→${shownIn}`).toBeLessThan(0.01);
          }
      }),
      { numRuns: RUNS * 5 },
    );
  });

  it("offers the imperial and alternative units where people use them", () => {
    expect(entryUnitsOf("height")).toEqual(["cm", "in", "ft"]);
    expect(entryUnitsOf("weight")).toEqual(["kg", "lb"]);
    expect(entryUnitsOf("water")).toEqual(["l", "fl_oz", "ml"]);
    expect(entryUnitsOf("active_energy")).toEqual(["kcal", "kj"]);
    expect(entryUnitsOf("skin_temperature")).toEqual(["celsius", "fahrenheit"]);
    expect(displayUnitOf("active_energy", "metric", "kj")).toBe("kj");
    expect(displayUnitOf("weight", "imperial", "kj")).toBe("lb");
    expect(displayUnitOf("height", "imperial")).toBe("in");
  });
});
