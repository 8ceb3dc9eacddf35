import uPlot from "uplot";
import { formatAxisDay, formatNumber } from "./format.ts";

/**
 * uPlot options for the dashboard's charts. Colours keep at least 4.5:1 against the white card (WCAG
 * 1.4.11 asks 3:1 of graphics); a second series differs in hue and dash, not colour alone.
 */
export const SERIES_COLORS = ["#0f766e", "#b45309", "#1d4ed8", "#9d174d"] as const;
const BAND_FILLS = [
  "rgb(15 118 110 / 14%)",
  "rgb(180 83 9 / 14%)",
  "rgb(29 78 216 / 14%)",
  "rgb(157 23 77 / 14%)",
];
const DASHES: (number[] | undefined)[] = [undefined, [6, 3], [2, 3], [8, 3, 2, 3]];
const AXIS_COLOR = "#4a5a57";
const GRID_COLOR = "#e3e9e8";
export const CHART_HEIGHT_PX = 220;

export type PlotSeries = {
  label: string;
  values: (number | null)[];
  /** Lowest and highest per bucket: drawn as a band around the line when given. */
  band?: { mins: (number | null)[]; maxs: (number | null)[] };
  /** Values with no neighbour on either side; drawn as dots. */
  isolated: number[];
  decimals: number;
};

export type PlotSpec = {
  /** Seconds: UTC midnights of local days, or instants for an intraday series. */
  xs: number[];
  series: PlotSeries[];
  /** Bars for summed metrics by day (steps, sleep…); lines otherwise. */
  kind: "line" | "bars";
  /** `days`: x are local days at UTC midnight; `instants`: real instants shown in `timeZone`. */
  axis: { kind: "days" } | { kind: "instants"; timeZone: string };
  language: string;
};

const instantFormats = new Map<string, Intl.DateTimeFormat>();
function formatInstant(seconds: number, incrementS: number, language: string, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions =
    incrementS < 86_400 ? { hour: "2-digit", minute: "2-digit" } : { day: "numeric", month: "short" };
  const key = `${language}:${timeZone}:${incrementS < 86_400}`;
  let format = instantFormats.get(key);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat(language, { ...options, timeZone });
    } catch {
      format = new Intl.DateTimeFormat(language, { ...options, timeZone: "UTC" });
    }
    instantFormats.set(key, format);
  }
  return format.format(seconds * 1000);
}

/** The aligned data uPlot draws: x, then each series, then each band's upper and lower edge. */
export function buildPlotData(spec: PlotSpec): uPlot.AlignedData {
  const columns: (number | null)[][] = spec.series.map((s) => s.values);
  for (const s of spec.series) if (s.band) columns.push(s.band.maxs, s.band.mins);
  return [spec.xs, ...columns] as uPlot.AlignedData;
}

export function buildPlotOptions(spec: PlotSpec): Omit<uPlot.Options, "width"> {
  const timeZone = spec.axis.kind === "instants" ? spec.axis.timeZone : "Etc/UTC";
  const decimals = Math.max(0, ...spec.series.map((s) => s.decimals));
  const series: uPlot.Series[] = [{}];
  const bands: uPlot.Band[] = [];
  spec.series.forEach((s, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length] as string;
    series.push({
      label: s.label,
      stroke: color,
      width: 2,
      dash: DASHES[i % DASHES.length],
      ...(spec.kind === "bars"
        ? { fill: color, paths: uPlot.paths.bars?.({ size: [0.7, 24, 1], align: 0 }) }
        : {}),
      points: {
        size: 6,
        fill: color,
        // Dense series hide their dots; a value alone between gaps still needs one to be seen.
        filter: (_u: uPlot, _i: number, show: boolean) => (show ? null : s.isolated),
      },
    });
  });
  let next = spec.series.length + 1;
  spec.series.forEach((s, i) => {
    if (!s.band) return;
    const edge: uPlot.Series = { stroke: "transparent", width: 0, points: { show: false } };
    series.push({ ...edge, label: `${s.label} max` }, { ...edge, label: `${s.label} min` });
    bands.push({ series: [next, next + 1], fill: BAND_FILLS[i % BAND_FILLS.length] });
    next += 2;
  });
  const axisFont = "12px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  return {
    height: CHART_HEIGHT_PX,
    series,
    bands,
    legend: { show: false },
    cursor: { drag: { x: false, y: false, setScale: false }, points: { size: 8 } },
    scales: {
      x: { time: true },
      // Bars grow from zero; lines zoom to their values.
      ...(spec.kind === "bars"
        ? {
            y: {
              range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [
                0,
                max > 0 ? max * 1.08 : 1,
              ],
            },
          }
        : {}),
    },
    tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), timeZone),
    axes: [
      {
        stroke: AXIS_COLOR,
        font: axisFont,
        grid: { stroke: GRID_COLOR, width: 1 },
        ticks: { stroke: GRID_COLOR },
        values: (_u, splits, _axis, _space, increment) =>
          splits.map((s) =>
            spec.axis.kind === "instants"
              ? formatInstant(s, increment, spec.language, spec.axis.timeZone)
              : formatAxisDay(s, increment, spec.language),
          ),
      },
      {
        stroke: AXIS_COLOR,
        font: axisFont,
        size: 56,
        grid: { stroke: GRID_COLOR, width: 1 },
        ticks: { stroke: GRID_COLOR },
        values: (_u, splits) => splits.map((v) => formatNumber(v, decimals + 1, spec.language)),
      },
    ],
  };
}
