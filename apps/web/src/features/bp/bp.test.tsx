import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, type BpAverage, type BpAverages, type BpReading } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { averagesPlotSpec, pressureText, rangeDays } from "./bp-averages.ts";
import { emptyDraft, validateDraft } from "./reading-form.ts";

configure({ asyncUtilTimeout: 5000 });

const NOW = new Date("2026-11-23T12:00:00Z");

describe("reading form checks", () => {
  const draft = (over: Partial<ReturnType<typeof emptyDraft>>) => ({ ...emptyDraft(NOW), ...over });

  it("builds the request from a valid draft", () => {
    const { errors, request } = validateDraft(
      draft({ systolic: "128", diastolic: "82", pulse: "64", arm: "left", note: " after coffee " }),
      NOW,
    );
    expect(errors).toEqual({});
    expect(request).toMatchObject({
      systolic: 128,
      diastolic: 82,
      pulse: 64,
      arm: "left",
      note: "after coffee",
    });
  });

  it("refuses implausible, missing and inverted values and a future time, with one key per field", () => {
    const { errors, request } = validateDraft(
      draft({ systolic: "80", diastolic: "90", pulse: "12", at: "2027-01-01T00:00" }),
      NOW,
    );
    expect(request).toBeNull();
    expect(errors.systolic?.key).toBe("bp.errors.systolic_above");
    expect(errors.pulse).toEqual({ key: "bp.errors.range", values: { min: 25, max: 250 } });
    expect(errors.at?.key).toBe("bp.errors.future");
    expect(validateDraft(draft({ systolic: "", diastolic: "12.5" }), NOW).errors).toMatchObject({
      systolic: { key: "bp.errors.required" },
      diastolic: { key: "bp.errors.whole_number" },
    });
  });
});

const stat = (mean: number, min = mean, max = mean) => ({ mean, min, max });
const AVERAGES: BpAverages = {
  from: "2026-10-24",
  to: "2026-11-22",
  period: "day",
  buckets: [
    {
      t: "2026-11-20",
      count: 2,
      systolic: stat(125.5, 120, 131),
      diastolic: stat(82.5, 80, 85),
      pulse: null,
      pulse_count: 0,
      category: "normal",
    },
    {
      t: "2026-11-22",
      count: 1,
      systolic: stat(150),
      diastolic: stat(90),
      pulse: stat(70),
      pulse_count: 1,
      category: "grade_1",
    },
  ],
  overall: {
    count: 3,
    systolic: stat(132, 120, 145),
    diastolic: stat(83.3, 80, 85),
    pulse: stat(70),
    pulse_count: 1,
    category: "high_normal",
  },
  last_7_days: {
    count: 3,
    systolic: stat(132, 120, 145),
    diastolic: stat(83.3, 80, 85),
    pulse: stat(70),
    pulse_count: 1,
    category: "high_normal",
  },
  last_30_days: null,
};

describe("log averages", () => {
  it("covers the chosen range up to today", () => {
    expect(rangeDays("last_30_days", "2026-11-22")).toEqual({ from: "2026-10-24", to: "2026-11-22" });
    expect(rangeDays("last_3_months", "2026-11-22")).toEqual({ from: "2026-08-23", to: "2026-11-22" });
    expect(rangeDays("last_year", "2026-11-22")).toEqual({ from: "2025-11-23", to: "2026-11-22" });
  });

  it("charts systolic, diastolic and pulse per period, with the spread as a band and gaps where pulse is missing", () => {
    const spec = averagesPlotSpec(AVERAGES, { systolic: "S", diastolic: "D", pulse: "P" }, "en");
    expect(spec.xs).toEqual([Date.UTC(2026, 10, 20) / 1000, Date.UTC(2026, 10, 22) / 1000]);
    expect(spec.series.map((s) => [s.label, s.values])).toEqual([
      ["S", [125.5, 150]],
      ["D", [82.5, 90]],
      ["P", [null, 70]],
    ]);
    expect(spec.series[0]?.band).toEqual({ mins: [120, 150], maxs: [131, 150] });
    // A value with no neighbour is drawn as a dot.
    expect(spec.series[2]?.isolated).toEqual([1]);
    const noPulse = averagesPlotSpec(
      { ...AVERAGES, buckets: AVERAGES.buckets.slice(0, 1) },
      { systolic: "S", diastolic: "D", pulse: "P" },
      "en",
    );
    expect(noPulse.series.map((s) => s.label)).toEqual(["S", "D"]);
    expect(pressureText(AVERAGES.buckets[0] as BpAverage)).toBe("126/83");
  });
});

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const READING: BpReading = {
  id: "r1",
  client_id: null,
  systolic: 145,
  diastolic: 85,
  pulse: 70,
  measured_at: "2026-11-22T08:00:00Z",
  time_zone: "Europe/Moscow",
  arm: "left",
  note: "",
  category: "isolated_systolic_1",
  created: "2026-11-22T08:01:00Z",
};

function renderAt(path: string) {
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

describe("blood-pressure pages", { timeout: 20_000 }, () => {
  afterEach(async () => {
    cleanup();
    vi.useRealTimers();
    window.location.hash = "";
    await changeLanguage("en");
  });

  it("adds a reading with a client id and the browser's time zone, and deletes one only after Undo passes", async () => {
    const calls: { method: string; path: string; body?: unknown }[] = [];
    let readings: BpReading[] = [READING];
    configureApiClient({
      fetch: async (input, init) => {
        const path = String(input);
        const method = init?.method ?? "GET";
        if (method !== "GET")
          calls.push({ method, path, body: init?.body ? JSON.parse(String(init.body)) : undefined });
        if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
        if (path.startsWith(API.shareLinks)) return json(200, { results: [] });
        if (path.startsWith(API.bpAverages)) return json(200, AVERAGES);
        if (path.startsWith(API.bpReadings) && method === "GET")
          return json(200, { results: readings, count: readings.length, limit: 200, offset: 0 });
        if (path === API.bpReadings && method === "POST") return json(201, { ...READING, id: "r2" });
        if (method === "DELETE") {
          readings = [];
          return json(200, { ok: true });
        }
        return json(404, { error: "not found", code: "not_found" });
      },
    });
    renderAt("/blood-pressure");
    expect(await screen.findByRole("cell", { name: "145/85" })).toBeTruthy();
    // Averages come from the server: the last 7 days, the range, and a table per period.
    expect((await screen.findAllByText("132/83")).length).toBe(2);
    expect(screen.getByRole("table", { name: /Averages by day/ })).toBeTruthy();
    expect(screen.getByText("Nov 20, 2026")).toBeTruthy();
    expect(screen.getAllByText("Isolated systolic hypertension, grade 1").length).toBeGreaterThan(0);

    fireEvent.change(screen.getByLabelText("Systolic, mmHg"), { target: { value: "80" } });
    fireEvent.change(screen.getByLabelText("Diastolic, mmHg"), { target: { value: "90" } });
    fireEvent.click(screen.getByRole("button", { name: "Add reading" }));
    expect(await screen.findByText("Systolic pressure must be above diastolic")).toBeTruthy();
    expect(calls).toEqual([]);

    fireEvent.change(screen.getByLabelText("Systolic, mmHg"), { target: { value: "121" } });
    fireEvent.change(screen.getByLabelText("Diastolic, mmHg"), { target: { value: "79" } });
    fireEvent.click(screen.getByRole("button", { name: "Add reading" }));
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]?.body).toMatchObject({ systolic: 121, diastolic: 79, pulse: null });
    const sent = calls[0]?.body as { client_id: string; time_zone: string };
    expect(sent.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.time_zone).toBeTruthy();

    // Delete, then Undo: nothing is sent. Delete again and let the time pass: one DELETE.
    fireEvent.click(screen.getByRole("button", { name: /Delete the reading of/ }));
    expect(screen.queryByRole("cell", { name: "145/85" })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Undo" }));
    expect(await screen.findByRole("cell", { name: "145/85" })).toBeTruthy();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    fireEvent.click(screen.getByRole("button", { name: /Delete the reading of/ }));
    act(() => {
      vi.advanceTimersByTime(7000);
    });
    vi.useRealTimers();
    await waitFor(() => expect(calls.filter((c) => c.method === "DELETE")).toHaveLength(1));
    expect(calls.at(-1)?.path).toBe(API.bpReading.replace(":id", "r1"));
  });

  it("a share viewer reads the log with the token from the address fragment, without cookies", async () => {
    await changeLanguage("ru");
    const token = `tsh_${"a".repeat(43)}`;
    window.location.hash = `#${token}`;
    const seen: { auth: string | null; credentials?: RequestCredentials }[] = [];
    configureApiClient({
      fetch: async (input, init) => {
        const path = String(input);
        if (path.startsWith(API.session)) return json(200, { authenticated: false });
        if (path.startsWith(API.sharedBpLogAverages)) {
          seen.push({
            auth: new Headers(init?.headers).get("Authorization"),
            credentials: init?.credentials,
          });
          return json(200, AVERAGES);
        }
        if (path.startsWith(API.sharedBpLog)) {
          seen.push({
            auth: new Headers(init?.headers).get("Authorization"),
            credentials: init?.credentials,
          });
          return json(200, { results: [READING], count: 1, limit: 200, offset: 0 });
        }
        return json(404, { error: "not found", code: "not_found" });
      },
    });
    renderAt("/share-bp-log");
    expect(await screen.findByRole("cell", { name: "145/85" })).toBeTruthy();
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const call of seen) expect(call).toEqual({ auth: `Token ${token}`, credentials: "omit" });
    expect(await screen.findByRole("table", { name: /Средние по дням/ })).toBeTruthy();
    expect(screen.getByText("В дневнике 1 измерение")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Удалить/ })).toBeNull();
  });

  it("a revoked or missing link says so", async () => {
    window.location.hash = `#tsh_${"b".repeat(43)}`;
    configureApiClient({
      fetch: async (input) =>
        String(input).startsWith(API.session)
          ? json(200, { authenticated: false })
          : json(404, { error: "Not found", code: "not_found" }),
    });
    renderAt("/share-bp-log");
    expect(await screen.findByText(/This link does not work/)).toBeTruthy();
  });
});
