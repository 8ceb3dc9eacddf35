import sharp from "sharp";
import type { ReportMetric, WeeklyReport } from "./weekly-report.ts";

/**
 * The report's small charts: one seven-bar chart per series, drawn as SVG and rendered to PNG on the
 * server, because mail clients show neither SVG nor scripts. The pictures carry no text (a server may
 * lack fonts); the mail's HTML table beside them holds the days and numbers, and each image has alt text.
 */
export const CHART_WIDTH = 280;
export const CHART_HEIGHT = 64;
/** Rendered at twice the displayed size so the bars stay sharp on high-density screens. */
const SCALE = 2;

const COLORS: Record<ReportMetric, string> = {
  rmssd: "#2f6fde",
  stress: "#d9480f",
  energy: "#2b8a3e",
  sleep: "#6741d9",
};

/** The top of the scale: scores are 0–100; HRV and sleep scale to the week's largest value. */
function scaleMax(metric: ReportMetric, values: readonly number[]): number {
  if (metric === "stress" || metric === "energy") return 100;
  const top = Math.max(0, ...values);
  if (metric === "sleep") return Math.max(top, 10 * 3600);
  return Math.max(top * 1.1, 1);
}

/** The SVG of one series' seven days; a day without a value shows a short grey mark on the baseline. */
export function chartSvg(metric: ReportMetric, values: readonly (number | null)[]): string {
  const present = values.filter((v): v is number => v !== null);
  const max = scaleMax(metric, present);
  const gap = 8;
  const slot = (CHART_WIDTH - gap) / values.length;
  const barWidth = slot - gap;
  const baseline = CHART_HEIGHT - 4;
  const usable = baseline - 4;
  const bars = values.map((value, i) => {
    const x = (gap + i * slot).toFixed(1);
    if (value === null)
      return `<rect x="${x}" y="${baseline - 2}" width="${barWidth.toFixed(1)}" height="2" fill="#ced4da"/>`;
    const h = Math.max(2, (Math.min(value, max) / max) * usable);
    return `<rect x="${x}" y="${(baseline - h).toFixed(1)}" width="${barWidth.toFixed(1)}" height="${h.toFixed(1)}" rx="2" fill="${COLORS[metric]}"/>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH * SCALE}" height="${CHART_HEIGHT * SCALE}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}">`,
    `<rect width="${CHART_WIDTH}" height="${CHART_HEIGHT}" fill="#ffffff"/>`,
    `<line x1="0" y1="${baseline + 0.5}" x2="${CHART_WIDTH}" y2="${baseline + 0.5}" stroke="#dee2e6" stroke-width="1"/>`,
    ...bars,
    "</svg>",
  ].join("");
}

export type ChartImage = { metric: ReportMetric; cid: string; png: Buffer };

/** One PNG per series, each with the content id the HTML part refers to (`cid:`). */
export async function renderReportCharts(report: WeeklyReport, cidSuffix: string): Promise<ChartImage[]> {
  const metrics: ReportMetric[] = ["rmssd", "stress", "energy", "sleep"];
  return Promise.all(
    metrics.map(async (metric) => ({
      metric,
      cid: `chart-${metric}.${cidSuffix}`,
      png: await sharp(
        Buffer.from(
          chartSvg(
            metric,
            report.days.map((d) => d[metric]),
          ),
        ),
      )
        .png({ compressionLevel: 9, palette: true })
        .toBuffer(),
    })),
  );
}
