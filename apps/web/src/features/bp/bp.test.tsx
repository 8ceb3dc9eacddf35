import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, type BpReading } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { averageSince, emptyDraft, validateDraft } from "./reading-form.ts";

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

  it("averages the readings of a period", () => {
    const reading = (systolic: number, diastolic: number, pulse: number | null, at: string) =>
      ({ systolic, diastolic, pulse, measured_at: at }) as BpReading;
    const list = [
      reading(120, 80, 60, "2026-11-22T08:00:00Z"),
      reading(131, 85, null, "2026-11-20T08:00:00Z"),
    ];
    expect(averageSince(list, new Date("2026-11-16T00:00:00Z"))).toEqual({
      count: 2,
      systolic: 126,
      diastolic: 83,
      pulse: 60,
    });
    expect(averageSince(list, new Date("2026-11-23T00:00:00Z"))).toBeNull();
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
    expect(seen[0]).toEqual({ auth: `Token ${token}`, credentials: "omit" });
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
