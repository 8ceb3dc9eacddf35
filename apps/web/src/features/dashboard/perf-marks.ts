/**
 * Performance marks around drawing (read by the render benchmark, e2e/bench/dashboard-render.ts): when a
 * chunk's answer has arrived, when a chart has all of its chunks, and when uPlot has first drawn it.
 * Cheap enough to leave on; nothing is sent anywhere.
 */
export const CHUNK_ARRIVED_MARK = "tonus:chunk-arrived";
export const CHART_DATA_MARK = "tonus:chart-data";
export const CHART_DRAWN_MARK = "tonus:chart-drawn";

function mark(name: string, item: string): void {
  if (typeof performance === "undefined" || typeof performance.mark !== "function") return;
  performance.mark(name, { detail: item });
}

export function markChunkArrived(item: string): void {
  mark(CHUNK_ARRIVED_MARK, item);
}

export function markChartData(item: string): void {
  mark(CHART_DATA_MARK, item);
}

export function markChartDrawn(item: string): void {
  mark(CHART_DRAWN_MARK, item);
}
