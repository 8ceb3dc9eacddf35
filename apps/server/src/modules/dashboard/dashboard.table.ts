import {
  DASHBOARD_LIMITS,
  displayUnitOf,
  METRICS,
  type MetricKey,
  type StatsExportQuery,
  type StatsTable,
  type StatsTableQuery,
} from "@tonus/contract";
import type { AppContext } from "../../lib/context.ts";
import { toCsv } from "../account/archive.format.ts";
import { getLayout } from "./dashboard.layout.ts";
import { seriesOf, type Viewer } from "./dashboard.service.ts";
import { METRIC_LABELS, UNIT_LABELS } from "./dashboard.texts.ts";

/**
 * The stats table (spec §3 "Stats table: tableData with results, page, and an export table"): one row
 * per period, newest first, with the person's table parameters (at most 8, spec §5) as columns.
 */

type Ctx = Pick<AppContext, "config" | "database">;
type Row = { t: string; values: Record<string, number | null> };

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

async function allRows(ctx: Ctx, viewer: Viewer, q: StatsExportQuery | StatsTableQuery) {
  const parameters = (await getLayout(ctx, viewer)).table_parameters.slice(
    0,
    DASHBOARD_LIMITS.tableMaxParameters,
  );
  const series = await seriesOf(ctx, viewer, parameters, q);
  const byT = new Map<string, Row>();
  for (const metric of parameters) {
    for (const p of series.get(metric) ?? []) {
      let row = byT.get(p.t);
      if (!row) {
        row = { t: p.t, values: Object.fromEntries(parameters.map((m) => [m, null])) };
        byT.set(p.t, row);
      }
      row.values[metric] = round(p.value, METRICS[metric].decimals);
    }
  }
  const rows = [...byT.values()].sort((a, b) => (a.t < b.t ? 1 : -1));
  return { parameters, rows };
}

export async function getStatsTable(ctx: Ctx, viewer: Viewer, q: StatsTableQuery): Promise<StatsTable> {
  const { parameters, rows } = await allRows(ctx, viewer, q);
  const pages = Math.max(1, Math.ceil(rows.length / q.page_size));
  const page = Math.min(q.page, pages);
  return {
    demo: viewer.demo,
    parameters: parameters.map((metric) => ({
      metric,
      unit: displayUnitOf(metric, viewer.units, viewer.energy),
      decimals: METRICS[metric].decimals,
    })),
    results: rows.slice((page - 1) * q.page_size, page * q.page_size),
    page,
    pages,
    count: rows.length,
  };
}

const PERIOD_HEADER = { en: "Period starting", ru: "Начало периода" } as const;

/** The whole table as CSV (UTF-8 with BOM, formula-safe text, numbers as numbers), headers in `lang`. */
export async function exportStatsTable(ctx: Ctx, viewer: Viewer, q: StatsExportQuery): Promise<string> {
  const { parameters, rows } = await allRows(ctx, viewer, q);
  const header = (metric: MetricKey) => {
    const unit = UNIT_LABELS[displayUnitOf(metric, viewer.units, viewer.energy)][q.lang];
    const label = METRIC_LABELS[metric][q.lang];
    return unit ? `${label}, ${unit}` : label;
  };
  const period = PERIOD_HEADER[q.lang];
  const lines = rows.map((row) => ({
    [period]: row.t,
    ...Object.fromEntries(parameters.map((m) => [header(m), row.values[m]])),
  }));
  if (lines.length) return toCsv(lines);
  // No data: the header line alone (toCsv takes its columns from the rows).
  const empty = toCsv([{ [period]: null, ...Object.fromEntries(parameters.map((m) => [header(m), null])) }]);
  return empty.slice(0, empty.indexOf("\r\n") + 2);
}
