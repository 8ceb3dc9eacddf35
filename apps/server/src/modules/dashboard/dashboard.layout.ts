import {
  type ChartItemKey,
  DASHBOARD_LIMITS,
  type DashboardLayout,
  isChartItemKey,
  isMetricKey,
  type MetricKey,
} from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { UUID_RE } from "../../lib/uuid.ts";
import {
  type ChartRow,
  deleteChart,
  findSettings,
  insertCharts,
  listCharts,
  lockLayout,
  setChartPosition,
  upsertSettings,
} from "./dashboard.repo.ts";
import type { Viewer } from "./dashboard.service.ts";

/** The person's dashboard layout: charts of "My graphs" in order, the table's parameters, priorities. */

type Ctx = Pick<AppContext, "database">;

/** Charts a new dashboard starts with, and the demo's. */
export const DEFAULT_CHARTS: readonly ChartItemKey[] = [
  "stress",
  "energy",
  "productivity",
  "rmssd",
  "sleep",
  "steps",
  "calories",
  "blood_pressure",
  "weight",
];

/** The table's parameters until the person chooses. */
export const DEFAULT_TABLE_PARAMETERS: readonly MetricKey[] = [
  "stress",
  "energy",
  "productivity",
  "heart_rate",
  "rmssd",
];

const DEMO_LAYOUT: DashboardLayout = {
  demo: true,
  charts: DEFAULT_CHARTS.filter((item) => item !== "weight").map((item, position) => ({
    id: `demo-${item}`,
    item,
    position,
  })),
  table_parameters: [...DEFAULT_TABLE_PARAMETERS],
  source_priority: {},
};

const asDb = (tx: unknown) => tx as Db;
const toWire = (rows: ChartRow[]) =>
  rows
    .filter((r) => isChartItemKey(r.item))
    .map((r, position) => ({ id: r.id, item: r.item as ChartItemKey, position }));

function requireCustomer(viewer: Viewer): string {
  if (viewer.demo || !viewer.userId)
    throw new AppError("pro_required", "Your own dashboard is part of PRO: upgrade to edit it");
  return viewer.userId;
}

/** Until the person first changes the layout, the default charts are virtual, with these ids. */
const DEFAULT_ID_PREFIX = "default-";

/** The layout. Reading never writes: a dashboard nobody changed shows the defaults without storing them. */
export async function getLayout(ctx: Ctx, viewer: Viewer): Promise<DashboardLayout> {
  if (viewer.demo || !viewer.userId) return DEMO_LAYOUT;
  const settings = await findSettings(ctx.database.db, viewer.userId);
  const initialized = settings?.layoutInitialized === true;
  return {
    demo: false,
    charts: initialized
      ? toWire(await listCharts(ctx.database.db, viewer.userId))
      : DEFAULT_CHARTS.map((item, position) => ({ id: `${DEFAULT_ID_PREFIX}${item}`, item, position })),
    table_parameters: initialized
      ? settings.tableParameters.filter(isMetricKey)
      : [...DEFAULT_TABLE_PARAMETERS],
    source_priority: settings?.sourcePriority ?? {},
  };
}

/** Stores the default layout the first time the person changes it (in the caller's transaction). */
async function materialize(tx: Db, userId: string): Promise<void> {
  await lockLayout(tx, userId);
  const settings = await findSettings(tx, userId);
  if (settings?.layoutInitialized) return;
  if ((await listCharts(tx, userId)).length === 0) await insertCharts(tx, userId, DEFAULT_CHARTS, 0);
  await upsertSettings(tx, userId, {
    layoutInitialized: true,
    ...(settings?.tableParameters.length ? {} : { tableParameters: [...DEFAULT_TABLE_PARAMETERS] }),
  });
}

/** The stored chart a wire id names (a default chart's virtual id names the stored default). */
function findChart(charts: readonly ChartRow[], id: string): ChartRow | undefined {
  if (id.startsWith(DEFAULT_ID_PREFIX))
    return charts.find((c) => c.item === id.slice(DEFAULT_ID_PREFIX.length));
  return UUID_RE.test(id) ? charts.find((c) => c.id === id) : undefined;
}

export async function addChart(ctx: Ctx, viewer: Viewer, item: ChartItemKey) {
  const userId = requireCustomer(viewer);
  return ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    await materialize(tx, userId);
    const charts = await listCharts(tx, userId);
    if (charts.some((c) => c.item === item))
      throw new AppError("conflict", "This chart is already on the dashboard");
    if (charts.length >= DASHBOARD_LIMITS.maxCharts)
      throw new AppError("conflict", `A dashboard holds at most ${DASHBOARD_LIMITS.maxCharts} charts`);
    const last = charts.reduce((max, c) => Math.max(max, c.position), -1);
    const [row] = await insertCharts(tx, userId, [item], last + 1);
    return { id: (row as ChartRow).id, item, position: charts.length };
  });
}

export async function removeChart(ctx: Ctx, viewer: Viewer, id: string): Promise<void> {
  const userId = requireCustomer(viewer);
  await ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    await materialize(tx, userId);
    const chart = findChart(await listCharts(tx, userId), id);
    if (!chart || !(await deleteChart(tx, userId, chart.id))) throw new AppError("not_found", "Not found");
  });
}

/** Moves a chart one place up or down (spec §4 "moved up or down"); at the edge nothing changes. */
export async function moveChart(ctx: Ctx, viewer: Viewer, id: string, direction: "up" | "down") {
  const userId = requireCustomer(viewer);
  return ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    await materialize(tx, userId);
    const charts = await listCharts(tx, userId);
    const chart = findChart(charts, id);
    if (!chart) throw new AppError("not_found", "Not found");
    const from = charts.indexOf(chart);
    const to = direction === "up" ? from - 1 : from + 1;
    if (to >= 0 && to < charts.length) {
      const order = [...charts];
      [order[from], order[to]] = [order[to] as ChartRow, order[from] as ChartRow];
      for (const [position, c] of order.entries())
        if (c.position !== position) await setChartPosition(tx, userId, c.id, position);
    }
    return toWire(await listCharts(tx, userId));
  });
}

/** Sets the stats table's parameters, at most 8 (spec §5), duplicates dropped. */
export async function setTableParameters(ctx: Ctx, viewer: Viewer, parameters: MetricKey[]) {
  const userId = requireCustomer(viewer);
  const unique = [...new Set(parameters)];
  if (unique.length > DASHBOARD_LIMITS.tableMaxParameters)
    throw new AppError("table_limit", "you can't add more than 8 parameters to the table");
  return ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    await materialize(tx, userId);
    const row = await upsertSettings(tx, userId, { tableParameters: unique });
    return row.tableParameters.filter(isMetricKey);
  });
}

/** Sets the person's preferred sources of one metric; an empty list restores the default order. */
export async function setSourcePriority(ctx: Ctx, viewer: Viewer, metric: MetricKey, sources: string[]) {
  const userId = requireCustomer(viewer);
  return ctx.database.db.transaction(async (t) => {
    const tx = asDb(t);
    await lockLayout(tx, userId);
    const current = { ...((await findSettings(tx, userId))?.sourcePriority ?? {}) };
    if (sources.length) current[metric] = [...new Set(sources)];
    else delete current[metric];
    return (await upsertSettings(tx, userId, { sourcePriority: current })).sourcePriority;
  });
}
