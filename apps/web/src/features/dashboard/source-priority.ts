import { type ChartFlows, type ChartItem, type MetricKey, orderSources } from "@tonus/contract";

/** A chart whose days may come from more than one source, with its sources in the order they win. */
export type PriorityRow = {
  item: ChartItem;
  /** The metrics of the chart: an order set here applies to each of them. */
  metrics: MetricKey[];
  /** Source keys, the winning one first. */
  order: string[];
  /** True when the person set this order; false when it is the metric's default. */
  isCustom: boolean;
};

/**
 * The charts with two or more sources, each with its current order: the person's own for the chart's
 * first metric if they set one, else the metric's default order (`defaultSourceOrder`), which is what
 * the server applies.
 */
export function priorityRows(
  flows: Pick<ChartFlows, "items">,
  priority: Record<string, string[]>,
): PriorityRow[] {
  return flows.items.flatMap((item) => {
    const sources = item.sources.map((s) => s.source.key);
    const first = item.series[0]?.metric;
    if (sources.length < 2 || !first) return [];
    const own = priority[first] ?? [];
    return [
      {
        item,
        metrics: item.series.map((s) => s.metric),
        order: orderSources(first, sources, own),
        isCustom: own.length > 0,
      },
    ];
  });
}

/** The order with the source at `index` moved one place up (-1) or down (+1); unchanged at an edge. */
export function moveSource(order: readonly string[], index: number, step: -1 | 1): string[] {
  const to = index + step;
  if (index < 0 || index >= order.length || to < 0 || to >= order.length) return [...order];
  const next = [...order];
  [next[index], next[to]] = [next[to] as string, next[index] as string];
  return next;
}
