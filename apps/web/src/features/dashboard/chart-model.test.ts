import {
  CHART_ITEMS,
  type ChartItem,
  type ChartItemKey,
  type Intraday,
  METRICS,
  type MetricKey,
} from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { buildIntradayModel, wantsIntraday } from "./chart-model.ts";

function item(id: ChartItemKey): ChartItem {
  const def = CHART_ITEMS[id];
  const first = def.series[0] as MetricKey;
  const text = (en: string) => ({ en, ru: `${en} (ru)` });
  return {
    id,
    title: text(id),
    description: text(id),
    label: text(id),
    unit: { metric_label: text("bpm"), imperial_label: text("bpm") },
    series: def.series.map((metric) => ({
      metric,
      label: text(metric === "heart_rate" ? "Heart rate" : metric),
      unit: METRICS[metric].units.metric,
      decimals: METRICS[metric].decimals,
    })),
    aggregate: METRICS[first].aggregate,
    categories: [],
    sources: [],
    has_data: true,
    health_data: false,
    manual: false,
  };
}

const CONTEXT = {
  language: "en",
  unitLabels: new Map([["bpm", { en: "bpm", ru: "уд/мин" }]] as const),
  timeZone: "Europe/Berlin",
};

describe("the intraday view", () => {
  const range = { startDate: "2026-03-04", endDate: "2026-03-05", period: "day" as const, tags: [] };

  it("is used for one intraday metric over a few days by day, without tags", () => {
    expect(wantsIntraday(item("heart_rate"), range)).toBe(true);
    expect(wantsIntraday(item("heart_rate"), { ...range, endDate: "2026-03-10" })).toBe(true);
    expect(wantsIntraday(item("heart_rate"), { ...range, endDate: "2026-03-11" })).toBe(false);
    expect(wantsIntraday(item("heart_rate"), { ...range, period: "week" })).toBe(false);
    expect(wantsIntraday(item("heart_rate"), { ...range, tags: ["morning"] })).toBe(false);
    expect(wantsIntraday(item("steps"), range)).toBe(false);
    expect(wantsIntraday(item("blood_pressure"), range)).toBe(false);
  });

  it("draws the samples in time with a gap where the watch was off, and summarises them", () => {
    const intraday: Intraday = {
      metric: "heart_rate",
      unit: "bpm",
      demo: false,
      samples: 5000,
      points: [
        { at: "2026-03-04T08:00:00.000Z", value: 60 },
        { at: "2026-03-04T08:00:05.000Z", value: 182 },
        { at: "2026-03-04T08:00:10.000Z", value: 64 },
        // Half an hour without samples: the line must break, not bridge it.
        { at: "2026-03-04T08:30:10.000Z", value: 58 },
      ],
    };
    const model = buildIntradayModel(item("heart_rate"), intraday, CONTEXT, (at) => `@${at.slice(11, 19)}`);
    expect(model.isIntraday).toBe(true);
    expect(model.isPerDay).toBe(false);
    const [xs, values] = model.plot.data as [number[], (number | null)[]];
    const s = Date.parse("2026-03-04T08:00:00Z") / 1000;
    expect(xs).toEqual([s, s + 5, s + 10, s + 10 + 900, s + 1810]);
    expect(values).toEqual([60, 182, 64, null, 58]);
    // The lone sample after the gap is drawn as a dot.
    expect(model.series[0]).toMatchObject({ label: "Heart rate", unitLabel: "bpm", values });
    expect(model.size).toBe(5);
    expect(model.withData).toBe(4);
    expect(model.labelAt(1)).toBe("@08:00:05");
    expect(model.labelAt(3)).toBe("");
    expect(model.series[0]?.summary).toMatchObject({
      count: 4,
      mean: 91,
      highest: { value: 182, t: "2026-03-04T08:00:05.000Z" },
      lowest: { value: 58, t: "2026-03-04T08:30:10.000Z" },
      latest: { value: 58, t: "2026-03-04T08:30:10.000Z" },
    });
    // Times on the axis are the person's zone's, not the browser's.
    expect(model.plot.options.scales?.x?.time).toBe(true);
    const tzDate = model.plot.options.tzDate as (ts: number) => Date;
    expect(tzDate(s).getHours()).toBe(9);
  });

  it("names the series in Russian from the server's texts", () => {
    const model = buildIntradayModel(
      item("heart_rate"),
      {
        metric: "heart_rate",
        unit: "bpm",
        demo: false,
        samples: 1,
        points: [{ at: "2026-03-04T08:00:00Z", value: 70 }],
      },
      { ...CONTEXT, language: "ru" },
      (at) => at,
    );
    expect(model.series[0]?.label).toBe("Heart rate (ru)");
    expect(model.series[0]?.unitLabel).toBe("уд/мин");
  });
});
