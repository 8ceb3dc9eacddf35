import {
  AddChartSchema,
  API,
  ChartDataQuerySchema,
  ChartDataSchema,
  ChartFlowsSchema,
  ChartSourceDetailSchema,
  DashboardChartSchema,
  DashboardLayoutSchema,
  IntradayQuerySchema,
  IntradaySchema,
  ManualValueCreateSchema,
  ManualValueListQuerySchema,
  ManualValueListSchema,
  ManualValueSchema,
  MoveChartSchema,
  OkSchema,
  SourcePrioritySchema,
  StatsExportQuerySchema,
  StatsTableQuerySchema,
  StatsTableSchema,
  TableParametersSchema,
} from "@tonus/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import type { AppContext } from "../../lib/context.ts";
import { dashboardDataSection } from "./dashboard.data.ts";
import {
  addChart,
  getLayout,
  moveChart,
  removeChart,
  setSourcePriority,
  setTableParameters,
} from "./dashboard.layout.ts";
import { getChartData, getChartSource, getFlows, getIntraday, resolveViewer } from "./dashboard.service.ts";
import { exportStatsTable, getStatsTable } from "./dashboard.table.ts";
import { createManualValue, deleteManualValue, listManualValues } from "./dashboard.values.ts";

const IdParamsSchema = z.object({ id: z.string().max(100) });

/**
 * The charts dashboard (issue 5). Reading is open to everyone (spec §2 "/dashboard: free access"): a
 * customer reads their own data, anyone else the demo (spec §6), decided here on the server. Changing
 * the dashboard needs a customer (402 `pro_required` otherwise, never 403, which the web app reads as
 * "signed out").
 */
export function registerDashboardRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(dashboardDataSection);
  const r = app.withTypeProvider<ZodTypeProvider>();
  const viewerOf = (request: FastifyRequest) =>
    resolveViewer(ctx, request.auth.kind === "user" ? request.auth.userId : null);
  const noStore = (reply: FastifyReply) => reply.header("cache-control", "no-store");

  r.get(
    API.chartFlows,
    { config: { access: "public" }, schema: { response: { 200: ChartFlowsSchema } } },
    async (request, reply) => {
      noStore(reply);
      return getFlows(ctx, await viewerOf(request));
    },
  );

  r.get(
    API.chartSource,
    {
      config: { access: "public" },
      schema: {
        params: z.object({ sourceId: z.string().max(20) }),
        response: { 200: ChartSourceDetailSchema },
      },
    },
    async (request, reply) => {
      noStore(reply);
      const id = /^\d{1,10}$/.test(request.params.sourceId) ? Number(request.params.sourceId) : -1;
      return getChartSource(ctx, await viewerOf(request), id);
    },
  );

  r.get(
    API.chartData,
    {
      config: { access: "public" },
      schema: { querystring: ChartDataQuerySchema, response: { 200: ChartDataSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return getChartData(ctx, await viewerOf(request), request.query);
    },
  );

  r.get(
    API.chartIntraday,
    {
      config: { access: "public" },
      schema: { querystring: IntradayQuerySchema, response: { 200: IntradaySchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return getIntraday(ctx, await viewerOf(request), request.query);
    },
  );

  r.get(
    API.chartLayout,
    { config: { access: "public" }, schema: { response: { 200: DashboardLayoutSchema } } },
    async (request, reply) => {
      noStore(reply);
      return getLayout(ctx, await viewerOf(request));
    },
  );

  r.post(
    API.chartLayoutCharts,
    { config: { access: "user" }, schema: { body: AddChartSchema, response: { 201: DashboardChartSchema } } },
    async (request, reply) =>
      reply.status(201).send(await addChart(ctx, await viewerOf(request), request.body.item)),
  );

  r.delete(
    API.chartLayoutChart,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      await removeChart(ctx, await viewerOf(request), request.params.id);
      return { ok: true as const };
    },
  );

  r.post(
    API.chartLayoutMove,
    {
      config: { access: "user" },
      schema: {
        params: IdParamsSchema,
        body: MoveChartSchema,
        response: { 200: z.array(DashboardChartSchema) },
      },
    },
    async (request) => moveChart(ctx, await viewerOf(request), request.params.id, request.body.direction),
  );

  r.put(
    API.chartLayoutTable,
    {
      config: { access: "user" },
      schema: { body: TableParametersSchema, response: { 200: TableParametersSchema } },
    },
    async (request) => ({
      parameters: await setTableParameters(ctx, await viewerOf(request), request.body.parameters),
    }),
  );

  r.put(
    API.chartLayoutPriority,
    {
      config: { access: "user" },
      schema: { body: SourcePrioritySchema, response: { 200: z.record(z.string(), z.array(z.string())) } },
    },
    async (request) =>
      setSourcePriority(ctx, await viewerOf(request), request.body.metric, request.body.sources),
  );

  r.get(
    API.chartTable,
    {
      config: { access: "public" },
      schema: { querystring: StatsTableQuerySchema, response: { 200: StatsTableSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return getStatsTable(ctx, await viewerOf(request), request.query);
    },
  );

  r.get(
    API.chartTableExport,
    { config: { access: "public" }, schema: { querystring: StatsExportQuerySchema } },
    async (request, reply) => {
      const csv = await exportStatsTable(ctx, await viewerOf(request), request.query);
      const q = request.query;
      return reply
        .header("cache-control", "no-store")
        .header("content-type", "text/csv; charset=utf-8")
        .header("content-disposition", `attachment; filename="tonus-${q.period}-${q.from}-${q.to}.csv"`)
        .send(csv);
    },
  );

  r.get(
    API.chartValues,
    {
      config: { access: "user" },
      schema: { querystring: ManualValueListQuerySchema, response: { 200: ManualValueListSchema } },
    },
    async (request, reply) => {
      noStore(reply);
      return listManualValues(ctx, await viewerOf(request), request.query);
    },
  );

  r.post(
    API.chartValues,
    {
      config: { access: "user" },
      schema: { body: ManualValueCreateSchema, response: { 200: ManualValueSchema, 201: ManualValueSchema } },
    },
    async (request, reply) => {
      const { value, created } = await createManualValue(ctx, await viewerOf(request), request.body);
      return reply.status(created ? 201 : 200).send(value);
    },
  );

  r.delete(
    API.chartValue,
    { config: { access: "user" }, schema: { params: IdParamsSchema, response: { 200: OkSchema } } },
    async (request) => {
      await deleteManualValue(ctx, await viewerOf(request), request.params.id);
      return { ok: true as const };
    },
  );
}
