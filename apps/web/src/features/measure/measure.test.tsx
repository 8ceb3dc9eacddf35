import { readFileSync } from "node:fs";
import { join } from "node:path";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, type MeasurementDetail } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { isBarePath } from "../../app/layout/chrome.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { findRoute, matchRoute } from "../../app/routes.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { CameraPanel } from "./CameraPanel.tsx";
import type { CameraSource } from "./capture/camera.ts";
import { createReplayStrap, encodeNotifications } from "./capture/strap.ts";
import type { CapturedRr } from "./captured.ts";
import { FilePanel } from "./FilePanel.tsx";
import { periodStart } from "./MeasurementsPage.tsx";
import { cleanSeries, sendUpload } from "./measure-api.ts";
import { StrapPanel } from "./StrapPanel.tsx";
import { parseTags } from "./TagsField.tsx";

configure({ asyncUtilTimeout: 5000 });

const FIXTURES = join(import.meta.dirname, "../../../../../packages/hrv/test/fixtures");
const fixture = (path: string) => readFileSync(join(FIXTURES, path), "utf8");
const RR = fixture("rr/ltdb_14046_clean_5min_rr.csv")
  .trim()
  .split("\n")
  .slice(1)
  .map((line) => Number(line.split(",")[0]));

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** Camera frames from the resting PPG recording (red falls as blood rises), delivered at once. */
function syntheticCamera(seconds: number, liftAtS?: number): CameraSource {
  const ppg = fixture("ppg/nk_bio_resting_5min_ppg_100hz.csv").trim().split("\n").slice(1).map(Number);
  const min = Math.min(...ppg);
  const max = Math.max(...ppg);
  return {
    async start(onFrame) {
      for (let k = 0; k < seconds * 30; k++) {
        const lifted = liftAtS !== undefined && k / 30 >= liftAtS;
        const p = ppg[Math.round((k / 30) * 100)] ?? 0;
        const r = lifted ? 90 : 200 - (50 * (p - min)) / (max - min);
        onFrame({ r, g: lifted ? 80 : 25, b: lifted ? 70 : 20 }, (k * 1000) / 30);
      }
      return { hasTorch: false };
    },
    stop: vi.fn(),
  };
}

afterEach(async () => {
  cleanup();
  vi.useRealTimers();
  await changeLanguage("en");
});

describe("measure routes", () => {
  it("need a session; the detail path hides header and footer", () => {
    expect(findRoute("/measure")?.access).toBe("auth");
    expect(findRoute("/measurements")?.access).toBe("auth");
    expect(matchRoute("/measure-details/m_1")?.params).toEqual({ id: "m_1" });
    expect(isBarePath("/measure-details/m_1")).toBe(true);
    expect(isBarePath("/measure")).toBe(false);
  });

  it("helpers keep only valid RR, split tags and bound periods", () => {
    // A value left out breaks the series there; given breaks move with the values kept.
    expect(cleanSeries([800, Number.NaN, 10, 6000, 900])).toEqual({ rrMs: [800, 900], rrBreaks: [1] });
    expect(cleanSeries([800, 810, 820, 20, 830, 840], [2, 5])).toEqual({
      rrMs: [800, 810, 820, 830, 840],
      rrBreaks: [2, 3, 4],
    });
    expect(cleanSeries([800, 810, 820], [1])).toEqual({ rrMs: [800, 810, 820], rrBreaks: [1] });
    expect(parseTags(" morning, coffee,,morning ", ["sport"])).toEqual(["sport", "morning", "coffee"]);
    expect(periodStart("all")).toBeUndefined();
    const from = new Date(periodStart("7", new Date(2026, 10, 23, 15)) ?? "");
    expect(from.getDate()).toBe(17);
    expect(from.getHours()).toBe(0);
  });
});

describe("camera panel", { timeout: 20_000 }, () => {
  it("runs a 2-minute camera measurement from synthetic frames to RR intervals", async () => {
    const onComplete = vi.fn<(captured: CapturedRr) => void>();
    render(
      <CameraPanel onComplete={onComplete} onCancel={vi.fn()} createSource={() => syntheticCamera(125)} />,
    );
    expect(screen.getByText(/Cover the rear camera lens/)).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Start" }));
    await waitFor(() => expect(onComplete).toHaveBeenCalledTimes(1));
    const captured = onComplete.mock.calls[0]?.[0];
    expect(captured?.source).toBe("camera");
    // About 2 minutes of pulses at ~70 bpm.
    expect(captured?.rrMs.length).toBeGreaterThan(100);
    expect(captured?.rrMs.length).toBeLessThan(200);
  });

  it("pauses with a warning when the finger is lifted, and cancels", async () => {
    const onCancel = vi.fn();
    const source = syntheticCamera(30, 25);
    render(<CameraPanel onComplete={vi.fn()} onCancel={onCancel} createSource={() => source} />);
    fireEvent.click(screen.getByRole("radio", { name: "300 beats" }));
    fireEvent.click(screen.getByRole("button", { name: "Start" }));
    expect(await screen.findByText(/Finger lifted/)).toBeTruthy();
    expect(screen.getByRole("progressbar", { name: "Measurement progress" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(source.stop).toHaveBeenCalled();
    expect(onCancel).toHaveBeenCalled();
  });

  it("says so when the camera is refused", async () => {
    const denied: CameraSource = {
      start: async () => {
        const { CameraError } = await import("./capture/camera.ts");
        throw new CameraError("denied");
      },
      stop: vi.fn(),
    };
    render(<CameraPanel onComplete={vi.fn()} onCancel={vi.fn()} createSource={() => denied} />);
    fireEvent.click(screen.getByRole("button", { name: "Start" }));
    expect(await screen.findByText(/Camera access was refused/)).toBeTruthy();
  });
});

describe("strap panel", { timeout: 20_000 }, () => {
  it("replays recorded Heart Rate Measurement notifications into a 2-minute measurement", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const onComplete = vi.fn<(captured: CapturedRr) => void>();
    const strap = createReplayStrap(encodeNotifications(RR), { speed: 20, deviceName: "Polar H10" });
    render(<StrapPanel onComplete={onComplete} onCancel={vi.fn()} strap={strap} />);
    fireEvent.click(screen.getByRole("button", { name: "Connect the strap" }));
    await act(() => vi.advanceTimersByTimeAsync(3000));
    expect(screen.getByText("Connected to Polar H10")).toBeTruthy();
    expect(screen.getByRole("list", { name: "Latest RR intervals" }).children.length).toBe(8);
    await act(() => vi.advanceTimersByTimeAsync(4000));
    expect(onComplete).toHaveBeenCalledTimes(1);
    const captured = onComplete.mock.calls[0]?.[0];
    expect(captured).toMatchObject({ source: "strap", device: "Polar H10" });
    const total = captured?.rrMs.reduce((a, b) => a + b, 0) ?? 0;
    expect(total).toBeGreaterThanOrEqual(120_000);
    expect(total).toBeLessThan(122_000);
  });

  it("says plainly when the browser has no Web Bluetooth, in Russian too", async () => {
    await changeLanguage("ru");
    render(<StrapPanel onComplete={vi.fn()} onCancel={vi.fn()} strap={null} />);
    expect(screen.getByText(/В этом браузере нет Web Bluetooth/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Подключить датчик" })).toBeNull();
  });
});

describe("file panel", () => {
  it("previews an RR file before it is used", async () => {
    const onComplete = vi.fn<(captured: CapturedRr) => void>();
    const { container } = render(<FilePanel onComplete={onComplete} onCancel={vi.fn()} />);
    const input = container.querySelector("input[type=file]") as HTMLInputElement;
    const text = `rr_ms\n${RR.slice(0, 100).join("\n")}\nabc\n`;
    fireEvent.change(input, { target: { files: [new File([text], "polar.txt", { type: "text/plain" })] } });
    const preview = await screen.findByTestId("file-preview");
    expect(preview.textContent).toContain("Preview of polar.txt");
    expect(preview.textContent).toContain("One interval per line");
    expect(preview.textContent).toContain("100 intervals");
    expect(preview.textContent).toContain("“abc” is not a number");
    expect(screen.getByRole("img", { name: /Tachogram of 100 intervals/ })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Use these intervals" }));
    expect(onComplete.mock.calls[0]?.[0]).toMatchObject({ source: "file" });
    expect(onComplete.mock.calls[0]?.[0].rrMs).toHaveLength(100);
  });

  it("refuses a file with too few intervals, with Russian plurals", async () => {
    await changeLanguage("ru");
    const { container } = render(<FilePanel onComplete={vi.fn()} onCancel={vi.fn()} />);
    const input = container.querySelector("input[type=file]") as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(["800\n810\n"], "short.txt")] } });
    expect(await screen.findByText("Прочитано только 2 интервала, а нужно не меньше 20.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Использовать эти интервалы" })).toBeNull();
  });
});

const DETAIL: MeasurementDetail = {
  id: "m_1",
  client_id: "8d1f6f8e-4b7a-4f57-9d51-2f1d7f0c8a11",
  source: "camera",
  device: null,
  started_at: "2026-11-23T08:00:00.000Z",
  time_zone: "Europe/Moscow",
  created: "2026-11-23T08:02:00.000Z",
  algorithm_version: "rr-1.0.0",
  series: "corrected",
  heart_rate: 64,
  meanrr: 937,
  stdrr: 52.3,
  rmssd: 41.2,
  pnn50: 18.4,
  mxdmn: 260,
  amo: 38.1,
  psi: 78,
  pvi: 146,
  power: null,
  vlf: null,
  lf: null,
  hf: null,
  lfhf: null,
  total_beats: 127,
  energy: 71,
  stress: 24,
  performance: 66,
  feel: 4,
  mood: 3,
  kerdo: null,
  robinson: null,
  functional_changes: null,
  functional_changes_level: null,
  kek: null,
  kvas: null,
  phys_state: null,
  phys_state_level: null,
  bp: null,
  tags: ["morning"],
  labels: [],
  quality: "not_enough_data",
  issues: [{ code: "too_short_for_frequency" }],
  rr_ms: RR.slice(0, 127),
  rr_breaks: [],
  corrected_beats: [{ index: 5, type: "ectopic" }],
  raw: null,
  corrected: null,
  spectrum: null,
  decoding_locked: true,
  decoding: null,
};

function renderAt(path: string, respond: (path: string, init?: RequestInit) => Response) {
  configureApiClient({ fetch: async (input, init) => respond(String(input), init) });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

describe("measurement pages", { timeout: 20_000 }, () => {
  const session = (path: string) => path.startsWith(API.session);

  it("the detail shows scores, values, the tachogram, the spec's text and a locked decoding", async () => {
    renderAt("/measure-details/m_1", (path) => {
      if (session(path)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith("/dashboard_api/v1/measurements/m_1/")) return json(200, DETAIL);
      return json(404, { error: "not found", code: "not_found" });
    });
    expect((await screen.findByTestId("score-energy")).textContent).toBe("71");
    expect(screen.getByText("Not enough data for full analysis, take another measurement")).toBeTruthy();
    expect(screen.getByTestId("value-rmssd").textContent).toContain("41.2 ms");
    expect(screen.getByRole("img", { name: /Tachogram of 127 intervals .* 1 corrected/ })).toBeTruthy();
    expect(screen.getByTestId("decoding-locked").textContent).toContain("part of PRO");
    expect(screen.getByRole("link", { name: "Upgrade to PRO" }).getAttribute("href")).toBe("/payment");
    expect(document.querySelector("header")).toBeNull();
  });

  it("the detail shows the bad-data text and decoding against norms and baseline in Russian", async () => {
    await changeLanguage("ru");
    const decoded: MeasurementDetail = {
      ...DETAIL,
      quality: "bad_data",
      decoding_locked: false,
      decoding: [
        {
          parameter: "rmssd",
          value: 41.2,
          norm: { low: 20, high: 60 },
          norm_zone: "within",
          baseline: { mean: 35, sd: 5, count: 22 },
          baseline_zone: "above",
        },
      ],
    };
    renderAt("/measure-details/m_1", (path) => {
      if (session(path)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith("/dashboard_api/v1/measurements/m_1/")) return json(200, decoded);
      return json(404, { error: "not found", code: "not_found" });
    });
    expect(
      (await screen.findAllByText("С данными этого измерения что-то не так, подробной расшифровки нет"))
        .length,
    ).toBeGreaterThan(0);
    expect(screen.getByText("В обычном диапазоне 20,0–60,0.")).toBeTruthy();
    expect(screen.getByText("Выше вашего уровня 35,0 (по 22 измерениям).")).toBeTruthy();
  });

  it("the history filters by period and tags and links to each detail", async () => {
    const asked: string[] = [];
    renderAt("/measurements", (path) => {
      if (session(path)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(API.measurements)) {
        asked.push(path);
        const hasTag = path.includes("tags=morning");
        return json(200, { results: hasTag ? [DETAIL] : [], count: hasTag ? 1 : 0, limit: 20, offset: 0 });
      }
      return json(404, { error: "not found", code: "not_found" });
    });
    expect(await screen.findByText("No measurements for this period.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Period"), { target: { value: "all" } });
    fireEvent.change(screen.getByLabelText("Tags"), { target: { value: "morning" } });
    fireEvent.click(screen.getByRole("button", { name: "Show" }));
    expect(await screen.findByText("1 measurement")).toBeTruthy();
    const link = screen.getAllByRole("link").find((a) => a.getAttribute("href") === "/measure-details/m_1");
    expect(link).toBeTruthy();
    expect(asked[0]).toContain("from=");
    expect(asked.at(-1)).not.toContain("from=");
    expect(asked.at(-1)).toContain("tags=morning");
  });

  it("an upload answers sent, retry (offline, 5xx, a retryable conflict) or rejected (4xx)", async () => {
    const upload = {
      client_id: DETAIL.client_id,
      rr_ms: RR.slice(0, 30),
      source: "file" as const,
      started_at: DETAIL.started_at,
      time_zone: "UTC",
    };
    configureApiClient({ fetch: async () => json(201, DETAIL) });
    expect(await sendUpload(upload)).toEqual({ kind: "sent", id: "m_1" });
    configureApiClient({
      fetch: async () => {
        throw new TypeError("Failed to fetch");
      },
    });
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    configureApiClient({ fetch: async () => json(502, {}) });
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    configureApiClient({ fetch: async () => json(400, { error: "bad", code: "validation_failed" }) });
    expect(await sendUpload(upload)).toEqual({ kind: "rejected", reason: "validation_failed" });
    // "The measurement could not be stored, try again": kept and retried, not dropped.
    const conflict = { error: "The measurement could not be stored, try again", code: "conflict" };
    configureApiClient({ fetch: async () => json(409, conflict) });
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    configureApiClient({ fetch: async () => json(409, { error: "busy", code: "idempotency_in_progress" }) });
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    // A client id that names another measurement cannot get better by retrying.
    const taken = { ...conflict, reason: "client_id_taken" };
    configureApiClient({ fetch: async () => json(409, taken) });
    expect(await sendUpload(upload)).toEqual({ kind: "rejected", reason: "conflict" });
  });

  it("an upload in the background never sends the page to the 500 page or the sign-in", async () => {
    const onServerFailure = vi.fn();
    const onNotAuthenticated = vi.fn();
    configureApiClient({
      handlers: { onServerFailure, onNotAuthenticated, onMaintenance: vi.fn() },
      fetch: async () => json(500, { error: "Internal Server Error", code: "internal" }),
    });
    const upload = {
      client_id: DETAIL.client_id,
      rr_ms: RR.slice(0, 30),
      source: "file" as const,
      started_at: DETAIL.started_at,
      time_zone: "UTC",
    };
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    configureApiClient({ fetch: async () => json(403, { error: "no", code: "not_authenticated" }) });
    expect(await sendUpload(upload)).toEqual({ kind: "retry" });
    expect(onServerFailure).not.toHaveBeenCalled();
    expect(onNotAuthenticated).not.toHaveBeenCalled();
    configureApiClient({
      handlers: { onServerFailure: vi.fn(), onNotAuthenticated: vi.fn(), onMaintenance: vi.fn() },
    });
  });
});
