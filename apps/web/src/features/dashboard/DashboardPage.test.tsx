// The dashboard page in happy-dom. The server is outside this test: `fetch` answers as the API would
// (shapes from the contract); everything in the page runs for real. happy-dom has no canvas, so the
// charts render their text alternative alone, which is what these tests read.
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import {
  API,
  CHART_ITEMS,
  type ChartData,
  type ChartFlows,
  type ChartItem,
  type ChartItemKey,
  type DashboardLayout,
  DISPLAY_UNITS,
  type DisplayUnit,
  METRICS,
  type MetricKey,
} from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { INITIAL_DATE_RANGE } from "./date-range.ts";
import { setDateRange } from "./date-range-store.ts";
import { addDays, todayIn } from "./dates.ts";

configure({ asyncUtilTimeout: 8000 });

const TITLES: Partial<Record<ChartItemKey, string>> = {
  stress: "Stress",
  rmssd: "rMSSD",
  weight: "Weight",
  water: "Water",
  heart_rate: "Heart rate",
  sleep: "Sleep",
};

function item(id: ChartItemKey, hasData: boolean): ChartItem {
  const def = CHART_ITEMS[id];
  const first = def.series[0] as MetricKey;
  const text = (en: string) => ({ en, ru: en });
  return {
    id,
    title: text(TITLES[id] ?? id),
    description: text(`About ${id}`),
    label: text(TITLES[id] ?? id),
    unit: {
      metric_label: text(METRICS[first].units.metric),
      imperial_label: text(METRICS[first].units.imperial),
    },
    series: def.series.map((metric) => ({
      metric,
      label: text(TITLES[metric as ChartItemKey] ?? metric),
      unit: METRICS[metric].units.metric,
      decimals: METRICS[metric].decimals,
    })),
    aggregate: METRICS[first].aggregate,
    categories: def.categories.map((c, i) => ({
      id: c,
      title: text(c),
      order_item: i + 1,
      order_category: 1,
    })),
    sources: [],
    has_data: hasData,
    health_data: def.series.some((m) => "health" in METRICS[m]),
    manual: def.series.some((m) => "manual" in METRICS[m]),
  };
}

const today = todayIn("UTC");

function flowsOf(demo: boolean): ChartFlows {
  return {
    demo,
    units: "metric",
    energy_unit: "kcal",
    time_zone: "UTC",
    categories: ["scores", "hrv", "body", "nutrition", "sleep", "vitals"].map((id, i) => ({
      id,
      title: { en: id, ru: id },
      order_category: i + 1,
    })),
    chart_flows: [],
    items: (Object.keys(TITLES) as ChartItemKey[]).map((id) =>
      item(id, ["stress", "rmssd", "sleep"].includes(id)),
    ),
    last_data_day: today,
    first_data_day: addDays(today, -1000),
    tags: [{ tag: "morning", count: 3 }],
    unit_labels: Object.fromEntries(
      (Object.keys(DISPLAY_UNITS) as DisplayUnit[]).map((u) => [u, { en: u, ru: u }]),
    ) as ChartFlows["unit_labels"],
  };
}

function layoutOf(demo: boolean, parameters: MetricKey[]): DashboardLayout {
  const charts: ChartItemKey[] = demo ? ["stress", "sleep"] : ["stress", "sleep", "rmssd"];
  return {
    demo,
    charts: charts.map((i, position) => ({ id: `default-${i}`, item: i, position })),
    table_parameters: parameters,
    source_priority: {},
  };
}

/** A chunk as the server answers it: one point on the first day of the chunk. */
function chunkOf(url: URL): ChartData {
  const itemKey = url.searchParams.get("item") as ChartItemKey;
  const from = url.searchParams.get("from") as string;
  const to = url.searchParams.get("to") as string;
  const chunk = Number(url.searchParams.get("chunk"));
  const days = Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000) + 1;
  const chunks = Math.ceil(days / 400);
  const start = addDays(from, chunk * 400);
  return {
    item: itemKey,
    period: "day",
    from: start,
    to: addDays(start, 399) < to ? addDays(start, 399) : to,
    chunk,
    chunks,
    demo: false,
    series: CHART_ITEMS[itemKey].series.map((metric) => ({
      metric,
      unit: METRICS[metric].units.metric,
      points: [{ t: start, value: 42 + chunk, min: 40, max: 45, total: null, days: 1 }],
    })),
  };
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

type Call = { method: string; path: string; body?: unknown };

function serve(options: {
  demo: boolean;
  parameters?: MetricKey[];
  onAddChart?: () => Response;
  profile?: () => Response;
  flows?: () => ChartFlows;
}) {
  const calls: Call[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  const notAuthenticated = vi.fn();
  configureApiClient({
    handlers: { onNotAuthenticated: notAuthenticated, onServerFailure: () => {}, onMaintenance: () => {} },
    fetch: async (input, init) => {
      const url = new URL(String(input), "http://localhost");
      const method = init?.method ?? "GET";
      calls.push({
        method,
        path: url.pathname,
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      if (url.pathname === API.session)
        return json(
          200,
          options.demo ? { authenticated: false } : { authenticated: true, user_type: "full" },
        );
      if (url.pathname === API.profile)
        return options.profile?.() ?? json(404, { error: "n/a", code: "not_found" });
      if (url.pathname === API.chartFlows) return json(200, options.flows?.() ?? flowsOf(options.demo));
      if (url.pathname === API.chartLayout)
        return json(200, layoutOf(options.demo, options.parameters ?? ["stress", "energy"]));
      if (url.pathname === API.chartData) {
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return json(200, chunkOf(url));
      }
      if (url.pathname === API.chartTable)
        return json(200, { demo: options.demo, parameters: [], results: [], page: 1, pages: 1, count: 0 });
      if (url.pathname === API.chartValues) return json(200, { results: [], count: 0 });
      if (url.pathname === API.chartLayoutPriority) return json(200, {});
      if (url.pathname === API.chartLayoutCharts && method === "POST")
        return options.onAddChart?.() ?? json(201, { id: "c1", item: "water", position: 3 });
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  return { calls, notAuthenticated, mostInFlight: () => mostInFlight };
}

function renderDashboard(path = "/dashboard") {
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

describe("the dashboard page", { timeout: 30_000 }, () => {
  afterEach(async () => {
    cleanup();
    setDateRange(INITIAL_DATE_RANGE);
    await changeLanguage("en");
  });

  it("shows a visitor the labelled demo, locked charts and upgrade prompts instead of controls", async () => {
    serve({ demo: true });
    const router = renderDashboard();
    const banner = await screen.findByRole("region", { name: "Demo dashboard" });
    expect(within(banner).getByRole("link", { name: "Upgrade to PRO" }).getAttribute("href")).toBe(
      "/payment",
    );
    const stress = await screen.findByRole("article", { name: "Stress" });
    expect(await within(stress).findByText("Data on 1 of 30 days")).toBeTruthy();
    expect(screen.getByText("Choosing the table's parameters is part of PRO.")).toBeTruthy();

    const health = screen.getByRole("tab", { name: "My health data" });
    expect(health.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(health, { key: "ArrowRight" });
    const graphs = screen.getByRole("tab", { name: "My graphs" });
    await waitFor(() => expect(graphs.getAttribute("aria-selected")).toBe("true"));
    expect(router.state.location.search).toBe("?tab=graphs");
    const locked = await screen.findByRole("article", { name: "Weight" });
    expect(within(locked).getByText("Your own Weight chart is part of PRO.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Add chart" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^Remove/ })).toBeNull();
    expect(screen.getByText("Typing in weight, water, sleep and other values is part of PRO.")).toBeTruthy();
  });

  it("refuses a 9th table parameter with the spec's message and sends nothing", async () => {
    const eight: MetricKey[] = [
      "stress",
      "energy",
      "productivity",
      "heart_rate",
      "meanrr",
      "stdrr",
      "pnn50",
      "mxdmn",
    ];
    const { calls } = serve({ demo: false, parameters: eight });
    renderDashboard();
    fireEvent.click(await screen.findByText("Parameters: 8 of 8"));
    fireEvent.click(screen.getByRole("checkbox", { name: /^Weight/ }));
    expect((await screen.findByRole("alert")).textContent).toBe(
      "You can't add more than 8 parameters to the table",
    );
    expect(calls.filter((c) => c.method === "PUT")).toEqual([]);
    // Taking one away makes room; the whole list is sent.
    fireEvent.click(screen.getByRole("checkbox", { name: /^Stress/ }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toHaveLength(1));
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ parameters: eight.slice(1) });
  });

  it("answers a 402 pro_required with the upgrade prompt, never the sign-in page", async () => {
    const { notAuthenticated } = serve({
      demo: false,
      onAddChart: () => json(402, { error: "Upgrade", code: "pro_required" }),
    });
    const router = renderDashboard("/dashboard?tab=graphs");
    fireEvent.click(await screen.findByRole("button", { name: "Add chart" }));
    const dialog = await screen.findByRole("dialog", { name: "Add a chart" });
    fireEvent.change(within(dialog).getByLabelText("Search charts"), { target: { value: "wat" } });
    expect(within(dialog).queryByRole("button", { name: "Add: Weight" })).toBeNull();
    await act(async () => {
      fireEvent.click(within(dialog).getByRole("button", { name: "Add: Water" }));
    });
    expect(await screen.findByText("This is part of PRO. Upgrade to change your dashboard.")).toBeTruthy();
    expect(notAuthenticated).not.toHaveBeenCalled();
    expect(router.state.location.pathname).toBe("/dashboard");
  });

  it("asks for every chunk of a long range, at most four at a time, and draws when the last arrives", async () => {
    setDateRange({ ...INITIAL_DATE_RANGE, status: "all_time" });
    const { calls, mostInFlight } = serve({ demo: false });
    renderDashboard("/dashboard?tab=graphs");
    const rmssd = await screen.findByRole("article", { name: "rMSSD" });
    // 1001 days by day: three chunks, one point in each.
    expect(await within(rmssd).findByText("Data on 3 of 1,001 days")).toBeTruthy();
    const asked = calls.filter((c) => c.path === API.chartData);
    expect(asked).toHaveLength(9);
    expect(mostInFlight()).toBeLessThanOrEqual(4);
    expect(mostInFlight()).toBeGreaterThan(1);
  });

  it("shows each chart's sources in the order they win and saves a new order for every metric of it", async () => {
    const source = (key: string, name: string) => ({
      source: { key, name: { en: name, ru: name }, url: "/x/1/" },
    });
    const flows = () => {
      const base = flowsOf(false);
      return {
        ...base,
        items: base.items.map((i) =>
          i.id === "sleep"
            ? {
                ...i,
                sources: [
                  source("apple_health", "Apple Health"),
                  source("oura", "Oura"),
                  source("garmin", "Garmin"),
                ],
              }
            : i,
        ),
      };
    };
    const { calls } = serve({ demo: false, flows });
    renderDashboard("/dashboard?tab=graphs");
    const card = await screen.findByRole("region", { name: "Which source counts" });
    const list = within(card).getByRole("list", { name: "Sources of Sleep, the first one counts" });
    // Sleep's default order: the ring before the watch before the phone's copy.
    expect(
      within(list)
        .getAllByRole("listitem")
        .map((li) => li.firstChild?.textContent),
    ).toEqual(["Oura", "Garmin", "Apple Health"]);
    expect(within(card).getByText("Default order")).toBeTruthy();
    expect(within(card).getByRole("button", { name: "Move Oura up for Sleep" })).toHaveProperty(
      "disabled",
      true,
    );
    fireEvent.click(within(card).getByRole("button", { name: "Move Apple Health up for Sleep" }));
    await waitFor(() => expect(calls.filter((c) => c.method === "PUT")).toHaveLength(3));
    // The chart's three metrics (asleep, deep, REM) each get the new order.
    expect(calls.filter((c) => c.method === "PUT").map((c) => c.body)).toEqual(
      ["sleep", "sleep_deep", "sleep_rem"].map((metric) => ({
        metric,
        sources: ["oura", "apple_health", "garmin"],
      })),
    );
  });

  it("asks again when the profile's units differ from the answers it holds (changed on another page)", async () => {
    let units: "metric" | "imperial" = "metric";
    const { calls } = serve({
      demo: false,
      profile: () => json(200, { units: "imperial", timezone: "UTC" }),
      flows: () => {
        const flows = { ...flowsOf(false), units };
        units = "imperial";
        return flows;
      },
    });
    renderDashboard();
    await waitFor(() => expect(calls.filter((c) => c.path === API.chartFlows)).toHaveLength(2));
    await screen.findByRole("article", { name: "Stress" });
    // Once they agree, nothing more is asked.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(calls.filter((c) => c.path === API.chartFlows)).toHaveLength(2);
  });
});
