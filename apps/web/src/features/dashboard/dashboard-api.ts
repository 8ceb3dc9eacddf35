import {
  type QueryClient,
  type UseQueryResult,
  useMutation,
  useQueries,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import {
  API,
  type ChartData,
  type ChartFlows,
  type ChartItemKey,
  type ChartPeriod,
  type DashboardChart,
  type DashboardLayout,
  type Intraday,
  type ManualValue,
  type ManualValueCreate,
  type ManualValueList,
  type MetricKey,
  type StatsTable,
} from "@tonus/contract";
import { useCallback, useMemo, useRef } from "react";
import { apiRequest } from "../../shared/api/client.ts";
import { useAuth } from "../auth/use-auth.ts";
import { chunkState, chunksToRequest, createLimiter, MAX_PARALLEL_CHUNKS } from "./chunks.ts";
import { chunkCount } from "./dates.ts";
import { markChunkArrived } from "./perf-marks.ts";

/**
 * The dashboard's API calls. Every key starts with the viewer kind, so an answer cached for a visitor
 * (the demo) is never shown after signing in; logout clears them all (auth-api's forgetEverything).
 */
export const DASHBOARD_QUERY_KEY = ["dashboard"] as const;
/** Answers stay fresh for a while: switching tabs or the period back and forth asks nothing again. */
const STALE_MS = 60_000;

function useViewerKey() {
  return [...DASHBOARD_QUERY_KEY, useAuth().userType] as const;
}

export function useFlows() {
  const key = useViewerKey();
  return useQuery({
    queryKey: [...key, "flows"],
    queryFn: () => apiRequest<ChartFlows>(API.chartFlows),
    staleTime: STALE_MS,
  });
}

export function useLayout() {
  const key = useViewerKey();
  return useQuery({
    queryKey: [...key, "layout"],
    queryFn: () => apiRequest<DashboardLayout>(API.chartLayout),
    staleTime: STALE_MS,
  });
}

/** What one chart or the table shows: local days (both ends included), period, week start, tags. */
export type RangeRequest = {
  startDate: string;
  endDate: string;
  period: ChartPeriod;
  weekStart: 0 | 1;
  /** Measurement tags that must all be present (My health data only). */
  tags: readonly string[];
};

function rangeQuery(range: RangeRequest): Record<string, string | undefined> {
  return {
    from: range.startDate,
    to: range.endDate,
    period: range.period,
    week_start: String(range.weekStart),
    tags: range.tags.length ? range.tags.join(",") : undefined,
  };
}

const runChunk = createLimiter(MAX_PARALLEL_CHUNKS);

function fetchChunk(item: ChartItemKey, range: RangeRequest, chunk: number, signal: AbortSignal) {
  return runChunk(() => {
    // A chart that left the page while its request waited in the queue asks for nothing.
    if (signal.aborted) return Promise.reject(new DOMException("Aborted", "AbortError"));
    return apiRequest<ChartData>(API.chartData, {
      query: { item, ...rangeQuery(range), chunk: String(chunk) },
      signal,
    }).then((data) => {
      markChunkArrived(item);
      return data;
    });
  });
}

const indices = (from: number, to: number) =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/**
 * Every chunk of one chart, at most four requests in flight across the page; the state is "fetched"
 * only when the last chunk has arrived (spec §4).
 */
export function useChartChunks(item: ChartItemKey, range: RangeRequest, enabled = true) {
  const key = useViewerKey();
  const expected = chunkCount(range.startDate, range.endDate, range.period, range.weekStart);
  const query = (chunk: number) => ({
    queryKey: [...key, "data", item, rangeQuery(range), chunk],
    queryFn: ({ signal }: { signal: AbortSignal }) => fetchChunk(item, range, chunk, signal),
    staleTime: STALE_MS,
    enabled,
  });
  const first = useQueries({ queries: indices(0, expected).map(query), combine: toAnswers });
  // The server's count decides; it matches ours, but should it ever say more, the rest are asked too.
  const needed = chunksToRequest(
    expected,
    first.map((r) => r.data),
  );
  const extra = useQueries({ queries: indices(expected, needed).map(query), combine: toAnswers });
  // Only new data or a new failure changes the state, so a chart is prepared and drawn once per answer
  // (a background refetch that brings the same data redraws nothing: React Query keeps the reference).
  const answers = [...first, ...extra];
  const datas = useShallowStable(answers.map((a) => a.data));
  const errors = useShallowStable(answers.map((a) => a.isError));
  const state = useMemo(
    () =>
      chunkState(
        needed,
        datas.map((data, i) => ({ data, isError: errors[i] === true })),
      ),
    [needed, datas, errors],
  );
  const retry = useCallback(() => {
    for (const r of [...first, ...extra]) if (r.isError) void r.refetch();
  }, [first, extra]);
  return { state, retry };
}

/** The previous array while its elements are the same ones. */
function useShallowStable<T>(list: T[]): T[] {
  const ref = useRef(list);
  const held = ref.current;
  if (list.length !== held.length || list.some((v, i) => v !== held[i])) ref.current = list;
  return ref.current;
}

type Answer = { data: ChartData | undefined; isError: boolean; refetch: () => Promise<unknown> };
function toAnswers(results: UseQueryResult<ChartData>[]): Answer[] {
  return results.map((r) => ({ data: r.data, isError: r.isError, refetch: r.refetch }));
}

/** Raw samples of a short range (heart rate every few seconds), downsampled by the server. */
export function useIntraday(metric: MetricKey, range: RangeRequest, enabled: boolean) {
  const key = useViewerKey();
  return useQuery({
    queryKey: [...key, "intraday", metric, range.startDate, range.endDate],
    queryFn: ({ signal }) =>
      apiRequest<Intraday>(API.chartIntraday, {
        query: { metric, from: range.startDate, to: range.endDate },
        signal,
      }),
    staleTime: STALE_MS,
    enabled,
  });
}

export function useStatsTable(range: RangeRequest, page: number) {
  const key = useViewerKey();
  return useQuery({
    queryKey: [...key, "table", rangeQuery(range), page],
    queryFn: ({ signal }) =>
      apiRequest<StatsTable>(API.chartTable, { query: { ...rangeQuery(range), page: String(page) }, signal }),
    staleTime: STALE_MS,
    placeholderData: (previous) => previous,
  });
}

/** The CSV of the whole table for the range, headers in the UI language (the server sends the file). */
export function statsExportUrl(range: RangeRequest, language: "en" | "ru"): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...rangeQuery(range), lang: language }))
    if (value !== undefined) params.set(name, value);
  return `${API.chartTableExport}?${params.toString()}`;
}

export const RECENT_VALUES_LIMIT = 10;

export function useManualValues(enabled: boolean) {
  const key = useViewerKey();
  return useQuery({
    queryKey: [...key, "values"],
    queryFn: () =>
      apiRequest<ManualValueList>(API.chartValues, { query: { limit: String(RECENT_VALUES_LIMIT) } }),
    enabled,
  });
}

/** After a change of data every chart, the table and the catalogue's has-data flags may differ. */
function invalidateData(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: DASHBOARD_QUERY_KEY });
}

function useLayoutCache() {
  const queryClient = useQueryClient();
  const key = [...useViewerKey(), "layout"];
  return {
    update: (change: (layout: DashboardLayout) => DashboardLayout) =>
      queryClient.setQueryData<DashboardLayout>(key, (layout) => (layout ? change(layout) : layout)),
    refetch: () => queryClient.invalidateQueries({ queryKey: key }),
    cancel: () => queryClient.cancelQueries({ queryKey: key }),
    refetchTable: () => queryClient.invalidateQueries({ queryKey: [...key.slice(0, -1), "table"] }),
  };
}

const chartPath = (id: string) => API.chartLayoutChart.replace(":id", encodeURIComponent(id));

export function useAddChart() {
  const cache = useLayoutCache();
  return useMutation({
    mutationFn: (item: ChartItemKey) =>
      apiRequest<DashboardChart>(API.chartLayoutCharts, { method: "POST", body: { item } }),
    // Adding stores the default charts for real the first time: their ids change, so read them again.
    onSettled: () => cache.refetch(),
  });
}

export function useRemoveChart() {
  const cache = useLayoutCache();
  return useMutation({
    mutationFn: (id: string) => apiRequest(chartPath(id), { method: "DELETE" }),
    onSettled: () => cache.refetch(),
  });
}

export function useMoveChart() {
  const cache = useLayoutCache();
  return useMutation({
    mutationFn: ({ id, direction }: { id: string; direction: "up" | "down" }) =>
      apiRequest<DashboardChart[]>(API.chartLayoutMove.replace(":id", encodeURIComponent(id)), {
        method: "POST",
        body: { direction },
      }),
    onSuccess: (charts) => cache.update((layout) => ({ ...layout, charts })),
    onError: () => cache.refetch(),
  });
}

const TABLE_MUTATION_KEY = [...DASHBOARD_QUERY_KEY, "table-parameters"] as const;

/**
 * Sets the table's parameters. Each change sends the whole list, so changes run one after another
 * (one mutation scope): a quick series of clicks can never land on the server out of order. The page
 * shows each change at once (in the cache, before the request is even queued) and reads the server's
 * list again once the last change has settled. A read of the layout in flight is cancelled first and
 * that cancellation awaited: it puts the list it started from back, which would otherwise undo the
 * change just shown.
 */
export function useSetTableParameters() {
  const queryClient = useQueryClient();
  const cache = useLayoutCache();
  const mutation = useMutation({
    mutationKey: TABLE_MUTATION_KEY,
    scope: { id: TABLE_MUTATION_KEY.join(":") },
    mutationFn: (parameters: MetricKey[]) =>
      apiRequest<{ parameters: MetricKey[] }>(API.chartLayoutTable, { method: "PUT", body: { parameters } }),
    onSettled: () => {
      if (queryClient.isMutating({ mutationKey: TABLE_MUTATION_KEY }) > 1) return;
      void cache.refetch();
      void cache.refetchTable();
    },
  });
  return async (parameters: MetricKey[], options: { onError: (failure: unknown) => void }) => {
    await cache.cancel();
    cache.update((layout) => ({ ...layout, table_parameters: parameters }));
    mutation.mutate(parameters, options);
  };
}

export function useCreateValue() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (value: ManualValueCreate) =>
      apiRequest<ManualValue>(API.chartValues, { method: "POST", body: value }),
    onSuccess: () => invalidateData(queryClient),
  });
}

export function useDeleteValue() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiRequest(API.chartValue.replace(":id", encodeURIComponent(id)), { method: "DELETE" }),
    onSettled: () => invalidateData(queryClient),
  });
}

/**
 * Sets the order of sources for every metric of one chart (an empty order restores the default); the
 * charts, the table and the layout are read again afterwards, as other days may now win.
 */
export function useSetSourcePriority() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      metrics,
      sources,
    }: {
      metrics: readonly MetricKey[];
      sources: readonly string[];
    }) => {
      for (const metric of metrics)
        await apiRequest(API.chartLayoutPriority, { method: "PUT", body: { metric, sources } });
    },
    onSettled: () => invalidateData(queryClient),
  });
}
