import type { ChartFlows, MetricKey } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { formatBucket, formatNumber, formatValue, metricLabelsOf, pick, unitLabelsOf } from "./format.ts";
import { validateManualDraft } from "./manual-entry.ts";
import { noDataNotice } from "./no-data.ts";
import { alignSeries, isolatedIndices, summarize } from "./series.ts";
import { toggleParameter } from "./table-parameters.ts";

describe("the table's parameters", () => {
  const eight: MetricKey[] = [
    "stress",
    "energy",
    "productivity",
    "heart_rate",
    "rmssd",
    "weight",
    "steps",
    "sleep",
  ];

  it("takes up to 8 and refuses a 9th (spec §5)", () => {
    expect(toggleParameter(eight.slice(0, 7), "sleep")).toEqual({ parameters: eight });
    expect(toggleParameter(eight, "water")).toEqual({ error: "table_limit" });
  });

  it("removes a chosen one even when full, so another can be added", () => {
    const fewer = toggleParameter(eight, "steps");
    expect(fewer).toEqual({ parameters: eight.filter((m) => m !== "steps") });
    if ("parameters" in fewer)
      expect(toggleParameter(fewer.parameters, "water")).toMatchObject({
        parameters: expect.arrayContaining(["water"]),
      });
  });
});

describe("the no-data notice (spec §8 'No data for the last 12 days')", () => {
  it("says so when nothing was ever recorded, or the newest day is more than 12 days back", () => {
    expect(noDataNotice(null, "2025-03-31")).toBe("never");
    expect(noDataNotice("2025-03-19", "2025-03-31")).toBeNull();
    expect(noDataNotice("2025-03-18", "2025-03-31")).toBe("stale");
    expect(noDataNotice("2025-03-31", "2025-03-31")).toBeNull();
  });
});

const FLOWS = {
  items: [
    {
      series: [{ metric: "weight", label: { en: "Weight", ru: "Вес" } }],
      unit: { metric_label: { en: "kg", ru: "кг" }, imperial_label: { en: "lb", ru: "фунт." } },
    },
    {
      series: [
        { metric: "bp_systolic", label: { en: "Systolic", ru: "Систолическое" } },
        { metric: "bp_diastolic", label: { en: "Diastolic", ru: "Диастолическое" } },
      ],
      unit: {
        metric_label: { en: "mmHg", ru: "мм рт. ст." },
        imperial_label: { en: "mmHg", ru: "мм рт. ст." },
      },
    },
  ],
} as unknown as Pick<ChartFlows, "items">;

describe("units and numbers", () => {
  it("names units and metrics from the server's texts in the UI language", () => {
    const units = unitLabelsOf(FLOWS);
    expect(pick(units.get("kg") ?? { en: "", ru: "" }, "ru")).toBe("кг");
    expect(pick(units.get("lb") ?? { en: "", ru: "" }, "en")).toBe("lb");
    expect(units.get("mmhg")?.en).toBe("mmHg");
    expect(pick(metricLabelsOf(FLOWS).get("bp_diastolic") ?? { en: "", ru: "" }, "ru-RU")).toBe(
      "Диастолическое",
    );
  });

  it("formats values with the metric's decimals in the UI language", () => {
    expect(formatValue(81.94, 1, "kg", "en")).toBe("81.9 kg");
    expect(formatValue(81.94, 1, "кг", "ru")).toBe("81,9 кг");
    expect(formatNumber(12345.6, 0, "en")).toBe("12,346");
    expect(formatNumber(12345.6, 0, "ru").replace(/\s/g, " ")).toBe("12 346");
    expect(formatValue(42, 0, "", "en")).toBe("42");
  });

  it("names a period by its first day, or by the month", () => {
    expect(formatBucket("2025-03-03", "week", "en")).toBe("Mar 3, 2025");
    expect(formatBucket("2025-03-01", "month", "en")).toBe("March 2025");
    expect(formatBucket("2025-03-01", "month", "ru")).toMatch(/^март 2025/);
  });
});

describe("typing a value in", () => {
  const NOW = new Date("2025-03-31T12:00:00Z");
  const draft = (over: object) => ({
    metric: "weight" as const,
    value: "80",
    unit: "kg" as const,
    at: "2025-03-31T09:00",
    ...over,
  });

  it("builds the request in the unit typed, a comma counting as a decimal point", () => {
    const { errors, request } = validateManualDraft(draft({ value: "176,4", unit: "lb" }), NOW, "id-1");
    expect(errors).toEqual([]);
    expect(request).toMatchObject({ client_id: "id-1", metric: "weight", value: 176.4, unit: "lb" });
    expect(request?.at).toBe(new Date("2025-03-31T09:00").toISOString());
  });

  it("refuses what the server refuses: not a number, out of the plausible range, a unit that does not fit, the future", () => {
    expect(validateManualDraft(draft({ value: "" }), NOW, "x").errors).toEqual([
      { field: "value", key: "required" },
    ]);
    expect(validateManualDraft(draft({ value: "8o" }), NOW, "x").errors).toEqual([
      { field: "value", key: "number" },
    ]);
    expect(validateManualDraft(draft({ value: "5000" }), NOW, "x").errors).toEqual([
      { field: "value", key: "range", min: 1, max: 700, decimals: 1 },
    ]);
    // 700 kg in pounds is 1543.236…: the shown maximum is rounded down, so typing it is accepted.
    const lb = validateManualDraft(draft({ value: "2000", unit: "lb" }), NOW, "x").errors[0];
    expect(lb).toMatchObject({ key: "range", max: 1543.2 });
    expect(validateManualDraft(draft({ value: "1543.2", unit: "lb" }), NOW, "x").errors).toEqual([]);
    expect(validateManualDraft(draft({ unit: "l" }), NOW, "x").errors).toEqual([
      { field: "unit", key: "unit" },
    ]);
    expect(validateManualDraft(draft({ at: "2025-04-02T13:00" }), NOW, "x").errors).toEqual([
      { field: "at", key: "future" },
    ]);
    expect(validateManualDraft(draft({ at: "" }), NOW, "x").request).toBeNull();
    expect(
      validateManualDraft(draft({ metric: "sleep", unit: "h", value: "25" }), NOW, "x").errors[0],
    ).toMatchObject({
      key: "range",
      min: 0,
      max: 24,
    });
  });
});

describe("a chart's series", () => {
  const point = (t: string, value: number, spread = 0) => ({
    t,
    value,
    min: value - spread,
    max: value + spread,
    total: null,
    days: 1,
  });

  it("puts every bucket of the range on the axis, a missing one as a gap", () => {
    const aligned = alignSeries(
      [
        {
          metric: "stress",
          unit: "score",
          points: [point("2025-03-01", 40), point("2025-03-02", 50), point("2025-03-05", 30, 5)],
        },
      ],
      { startDate: "2025-03-01", endDate: "2025-03-06", period: "day", weekStart: 0 },
    );
    expect(aligned.buckets).toHaveLength(6);
    expect(aligned.series[0]?.values).toEqual([40, 50, null, null, 30, null]);
    expect(aligned.series[0]?.isolated).toEqual([4]);
    expect(aligned.series[0]?.hasSpread).toBe(true);
    expect(aligned.bucketsWithData).toBe(3);
    expect(aligned.xs[0]).toBe(Date.UTC(2025, 2, 1) / 1000);
  });

  it("marks values with no neighbour as isolated", () => {
    expect(isolatedIndices([1, null, 2, 3, null, null, 4])).toEqual([0, 6]);
    expect(isolatedIndices([null, null])).toEqual([]);
  });

  it("summarizes the mean, the extremes and the latest value", () => {
    expect(summarize([point("2025-03-02", 50), point("2025-03-01", 40), point("2025-03-05", 30)])).toEqual({
      count: 3,
      mean: 40,
      lowest: { value: 30, t: "2025-03-05" },
      highest: { value: 50, t: "2025-03-02" },
      latest: { value: 30, t: "2025-03-05" },
    });
    expect(summarize([])).toBeNull();
  });
});
