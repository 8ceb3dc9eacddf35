import { describe, expect, it } from "vitest";
import {
  convertCmToFeetInches,
  convertFeetInchesToCm,
  convertKgToLb,
  convertLbToKg,
  roundTo,
} from "./units.ts";

describe("weight conversions", () => {
  it("converts known values", () => {
    expect(convertKgToLb(1)).toBeCloseTo(2.20462262, 6);
    expect(convertLbToKg(100)).toBeCloseTo(45.359237, 6);
  });

  it("round-trips kilograms through pounds within 0.01", () => {
    for (let kg = 20; kg <= 400; kg += 0.37) {
      expect(Math.abs(convertLbToKg(roundTo(convertKgToLb(kg), 2)) - kg)).toBeLessThan(0.01);
    }
  });
});

describe("height conversions", () => {
  it("converts known values", () => {
    expect(convertCmToFeetInches(182.88)).toEqual({ feet: 6, inches: 0 });
    expect(convertFeetInchesToCm({ feet: 5, inches: 10 })).toBeCloseTo(177.8, 6);
  });

  it("never shows 12 inches", () => {
    expect(convertCmToFeetInches(182.8)).toEqual({ feet: 6, inches: 0 });
  });

  it("round-trips centimetres through feet and inches within 0.13 cm (0.05 in display rounding)", () => {
    for (let cm = 50; cm <= 260; cm += 0.41) {
      expect(Math.abs(convertFeetInchesToCm(convertCmToFeetInches(cm)) - cm)).toBeLessThan(0.13);
    }
  });

  it("round-trips centimetres within 0.01 when inches keep three decimals", () => {
    for (let cm = 50; cm <= 260; cm += 0.41) {
      expect(Math.abs(convertFeetInchesToCm(convertCmToFeetInches(cm, 3)) - cm)).toBeLessThan(0.01);
    }
  });
});
