import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { Connection, Connector } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { CloudConnection } from "./CloudConnection.tsx";
import { leavePage, pollDelay } from "./connectors-api.ts";
import { formatMoment } from "./connectors-format.ts";

configure({ asyncUtilTimeout: 8000 });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const connection = (over: Partial<Connection> = {}): Connection => ({
  status: "active",
  connected_at: "2026-11-20T10:00:00Z",
  last_sync_at: "2026-11-23T09:30:00Z",
  last_sync_report: {
    read: 36,
    imported: 34,
    skipped: 0,
    rejected: 2,
    rejected_reasons: { out_of_range: 1, malformed: 1 },
  },
  sync_state: "idle",
  retry_at: null,
  last_error: null,
  ...over,
});

const oura = (over: Partial<Connector> = {}): Connector => ({
  provider: "oura",
  name: "Oura",
  configured: true,
  retired_on: null,
  has_export_file: true,
  metrics: ["sleep", "rmssd", "steps"],
  blood_pressure: false,
  connection: null,
  ...over,
});

type Call = { path: string; method: string; body: unknown };

/** A fake API answering from `state`; `handle` may change it per call (the server's side of the story). */
function mockApi(
  state: { connector: Connector },
  calls: Call[],
  handle?: (call: Call) => Response | undefined,
) {
  configureApiClient({
    fetch: async (input, init) => {
      const call = {
        path: String(input).split("?")[0] ?? "",
        method: init?.method ?? "GET",
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      };
      calls.push(call);
      const custom = handle?.(call);
      if (custom) return custom;
      if (call.path === "/dashboard_api/v1/connectors/oura/" && call.method === "GET")
        return json(200, state.connector);
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
}

/** The live region a message sits in, if any: one that takes the focus must not also be one. */
const liveRegionOf = (element: Element) => element.closest('[role="alert"], [role="status"], [aria-live]');

const newClient = () => new QueryClient({ defaultOptions: { queries: { retry: false } } });

function renderAt(path = "/data-sources/oura-ring", hasFileRoute = true, client = newClient()) {
  const router = createMemoryRouter(
    [{ path: "*", element: <CloudConnection provider="oura" hasFileRoute={hasFileRoute} /> }],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

afterEach(async () => {
  cleanup();
  vi.restoreAllMocks();
  await changeLanguage("en");
});

describe("CloudConnection", () => {
  it("says plainly when the operator has not configured the provider, and points to the export file", async () => {
    mockApi({ connector: oura({ configured: false }) }, []);
    renderAt();
    expect(await screen.findByRole("heading", { name: "Oura account" })).toBeTruthy();
    expect(
      screen.getByText(
        "This installation of Tonus is not set up to connect Oura accounts: its administrator can turn this on by registering the installation with Oura.",
      ),
    ).toBeTruthy();
    expect(screen.getByText(/with the export file this page describes/)).toBeTruthy();
    expect(screen.queryByRole("button")).toBeNull();
    // An entry of the provider without a file of its own (a gadget read through its app) promises none.
    cleanup();
    mockApi({ connector: oura({ configured: false }) }, []);
    renderAt("/data-sources/oura-ring", false);
    await screen.findByRole("heading", { name: "Oura account" });
    expect(screen.queryByText(/export file/)).toBeNull();
  });

  it("connects: asks the server to start and leaves for the provider, coming back to this page", async () => {
    const calls: Call[] = [];
    mockApi({ connector: oura() }, calls, (call) =>
      call.method === "POST"
        ? json(200, { authorization_url: "https://cloud.ouraring.com/oauth/authorize?state=s" })
        : undefined,
    );
    const leave = vi.spyOn(leavePage, "to").mockImplementation(() => {});
    renderAt("/data-sources-mobile-back/oura-ring");
    expect(
      await screen.findByText(
        "Connect your Oura account and Tonus will read this data in the background, about every hour: sleep, HRV (RMSSD), and steps.",
      ),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Connect Oura" }));
    await waitFor(() =>
      expect(leave).toHaveBeenCalledWith("https://cloud.ouraring.com/oauth/authorize?state=s"),
    );
    expect(calls).toContainEqual({
      path: "/dashboard_api/v1/connectors/oura/connect/",
      method: "POST",
      body: { return_to: "/data-sources-mobile-back/oura-ring" },
    });
  });

  it("shows how connecting goes until the account is connected", async () => {
    const steps = <p>Press Connect Oura below.</p>;
    const show = (connector: Connector) => {
      mockApi({ connector }, []);
      render(
        <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
          <RouterProvider
            router={createMemoryRouter([
              { path: "*", element: <CloudConnection provider="oura" steps={steps} /> },
            ])}
          />
        </QueryClientProvider>,
      );
    };
    show(oura());
    expect(await screen.findByText("Press Connect Oura below.")).toBeTruthy();
    cleanup();
    show(oura({ connection: connection() }));
    await screen.findByText("Connected since");
    expect(screen.queryByText("Press Connect Oura below.")).toBeNull();
    cleanup();
    show(oura({ configured: false }));
    await screen.findByText(/not set up to connect Oura accounts/);
    expect(screen.queryByText("Press Connect Oura below.")).toBeNull();
  });

  it("shows since when, the last sync and its report with the reasons for refused values", async () => {
    mockApi({ connector: oura({ connection: connection() }) }, []);
    renderAt();
    expect(await screen.findByText("Connected since")).toBeTruthy();
    expect(screen.getByText("Values read").nextElementSibling?.textContent).toBe("36");
    expect(screen.getByText("Added").nextElementSibling?.textContent).toBe("34");
    expect(screen.getByText("Refused").nextElementSibling?.textContent).toBe("2");
    expect(screen.getByText("Outside the plausible range: 1")).toBeTruthy();
    expect(screen.getByText("Sent in a form Tonus cannot read: 1")).toBeTruthy();
    // Nothing was already stored: no word on what that means.
    expect(screen.queryByText(/“Already stored” are values/)).toBeNull();
    cleanup();
    const report = connection().last_sync_report;
    if (!report) throw new Error("the fixture has a report");
    mockApi(
      {
        connector: oura({
          connection: connection({
            last_sync_report: { ...report, imported: 0, skipped: 34 },
          }),
        }),
      },
      [],
    );
    renderAt();
    expect(await screen.findByText(/“Already stored” are values Tonus already had/)).toBeTruthy();
  });

  it("syncs now and shows the progress until the sync is done", async () => {
    const calls: Call[] = [];
    const state = {
      connector: oura({ connection: connection({ last_sync_report: null, last_sync_at: null }) }),
    };
    let polls = 0;
    mockApi(state, calls, (call) => {
      if (call.method === "POST") {
        state.connector = oura({
          connection: connection({ sync_state: "running", last_sync_report: null, last_sync_at: null }),
        });
        return json(202, state.connector);
      }
      if (call.method === "GET" && state.connector.connection?.sync_state === "running" && ++polls >= 1)
        state.connector = oura({
          connection: connection({
            last_sync_report: { read: 5, imported: 5, skipped: 0, rejected: 0, rejected_reasons: {} },
          }),
        });
      return undefined;
    });
    renderAt();
    expect(await screen.findByText("Not yet")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Sync now" }));
    expect(await screen.findByText("Syncing…")).toBeTruthy();
    expect(screen.getByRole("button", { name: /Sync now/ }).getAttribute("aria-busy")).toBe("true");
    const button = screen.getByRole("button", { name: /Sync now/ });
    // Busy, but still focusable: the keyboard's focus stays where it was.
    expect(button.hasAttribute("disabled")).toBe(false);
    expect(button.getAttribute("aria-disabled")).toBe("true");
    fireEvent.click(button);
    await waitFor(() => expect(screen.getByText("Values read").nextElementSibling?.textContent).toBe("5"));
    expect(screen.queryByText("Syncing…")).toBeNull();
    // The end is said in the status line.
    expect(screen.getByRole("status").textContent).toMatch(/^Sync finished: .+\.$/);
    expect(calls.filter((c) => c.method === "POST" && c.path.endsWith("/sync/"))).toHaveLength(1);
  });

  it("keeps the focus in the panel when a sync finds the access refused, and does not call that finished", async () => {
    const state = { connector: oura({ connection: connection() }) };
    mockApi(state, [], (call) => {
      if (call.method === "POST") {
        state.connector = oura({ connection: connection({ sync_state: "running" }) });
        return json(202, state.connector);
      }
      if (call.method === "GET" && state.connector.connection?.sync_state === "running")
        state.connector = oura({
          connection: connection({
            status: "reconnect_needed",
            last_error: { code: "reconnect_needed", at: "2026-11-23T10:00:00Z" },
          }),
        });
      return undefined;
    });
    renderAt();
    const syncNow = await screen.findByRole("button", { name: "Sync now" });
    syncNow.focus();
    fireEvent.click(syncNow);
    // Sync now gives way to Connect again: the focus goes to the error that says why, not the page's
    // body, and the error is read by the focus alone, not also as a live region.
    const error = await screen.findByText(/no longer accepts Tonus's access/);
    await waitFor(() => expect(document.activeElement?.contains(error)).toBe(true));
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("status").textContent).toBe("");
  });

  it("says a paused sync finished when it resumes and ends between two looks", async () => {
    const state = {
      connector: oura({
        connection: connection({
          sync_state: "waiting",
          retry_at: new Date(Date.now() - 1000).toISOString(),
        }),
      }),
    };
    let gets = 0;
    mockApi(state, [], (call) => {
      if (call.method === "GET" && ++gets === 2)
        state.connector = oura({ connection: connection({ last_sync_at: "2026-11-23T11:00:00Z" }) });
      return undefined;
    });
    renderAt();
    expect(await screen.findByText(/^Next attempt: /)).toBeTruthy();
    await waitFor(() => expect(screen.getByRole("status").textContent).toMatch(/^Sync finished: .+\.$/));
  });

  it("disconnects after a confirmation, and says when the provider did not confirm the revocation", async () => {
    const calls: Call[] = [];
    const state = { connector: oura({ connection: connection() }) };
    mockApi(state, calls, (call) => {
      if (call.method !== "DELETE") return undefined;
      state.connector = oura();
      return json(200, { ok: true, revoked: false });
    });
    renderAt();
    fireEvent.click(await screen.findByRole("button", { name: "Disconnect" }));
    const group = screen.getByRole("group", { name: /Disconnect Oura\?/ });
    expect(group.textContent).toContain("Data already imported stays on your dashboard.");
    // The focus starts on Cancel: pressing Enter twice does not disconnect.
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Cancel"));
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(screen.queryByRole("group")).toBeNull();
    await waitFor(() => expect(document.activeElement?.textContent).toBe("Disconnect"));
    // Escape closes the question the same way.
    fireEvent.click(screen.getByRole("button", { name: "Disconnect" }));
    fireEvent.keyDown(screen.getByRole("button", { name: "Cancel" }), { key: "Escape" });
    expect(screen.queryByRole("group")).toBeNull();
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    fireEvent.click(screen.getByRole("button", { name: "Disconnect" }));
    fireEvent.click(screen.getByRole("button", { name: "Disconnect Oura" }));
    expect(await screen.findByText(/did not confirm that it revoked Tonus's access/)).toBeTruthy();
    // The outcome takes the focus from the button that went away.
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/did not confirm/));
    expect(liveRegionOf(screen.getByText(/did not confirm/))).toBeNull();
    expect(await screen.findByRole("button", { name: "Connect Oura" })).toBeTruthy();
    expect(calls).toContainEqual({
      path: "/dashboard_api/v1/connectors/oura/",
      method: "DELETE",
      body: undefined,
    });
  });

  it("reads the callback's result once and clears it from the address", async () => {
    mockApi({ connector: oura() }, []);
    const router = renderAt("/data-sources/oura-ring?connect=error&provider=oura&reason=denied&tab=2");
    expect(
      await screen.findByText("You did not allow Tonus to read your Oura data, so nothing was connected."),
    ).toBeTruthy();
    // The answer the browser came back with takes the focus, wherever the panel is on the page.
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/^You did not allow Tonus/));
    expect(liveRegionOf(screen.getByText(/^You did not allow Tonus/))).toBeNull();
    await waitFor(() => expect(router.state.location.search).toBe("?tab=2"));
    cleanup();
    mockApi({ connector: oura() }, []);
    renderAt("/data-sources/oura-ring?connect=ok&provider=withings");
    await screen.findByRole("button", { name: "Connect Oura" });
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("asks to connect again when the provider refused the token, and explains a pause", async () => {
    mockApi(
      {
        connector: oura({
          connection: connection({
            status: "reconnect_needed",
            last_error: { code: "reconnect_needed", at: "2026-11-23T10:00:00Z" },
          }),
        }),
      },
      [],
    );
    renderAt();
    // Found on opening the page, not replacing the focus: announced.
    expect((await screen.findByRole("alert")).textContent).toMatch(/no longer accepts Tonus's access/);
    expect(screen.getByRole("button", { name: "Connect Oura again" })).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Sync now" })).toBeNull();
    cleanup();
    mockApi(
      {
        connector: oura({
          connection: connection({
            sync_state: "waiting",
            retry_at: "2026-11-23T10:05:00Z",
            last_error: { code: "rate_limited", at: "2026-11-23T10:00:00Z" },
          }),
        }),
      },
      [],
    );
    renderAt();
    expect(
      await screen.findByText("Oura asked Tonus to slow down. The sync goes on by itself."),
    ).toBeTruthy();
    expect(screen.getByRole("status").textContent).toMatch(/^Next attempt: .+\.$/);
    // Pressing Sync now during the pause would change nothing: it says it is unavailable, and why.
    const syncNow = screen.getByRole("button", { name: "Sync now" });
    expect(syncNow.getAttribute("aria-disabled")).toBe("true");
    expect(syncNow.getAttribute("aria-describedby")).toBe(screen.getByRole("status").id);
  });

  it("writes a moment without its year when it is this year's", () => {
    const now = new Date(2026, 10, 28, 12, 0);
    expect(formatMoment(new Date(2026, 10, 28, 18, 13).toISOString(), "en", now)).toBe("Nov 28, 6:13 PM");
    expect(formatMoment(new Date(2026, 10, 28, 18, 13).toISOString(), "ru", now)).toBe("28 нояб., 18:13");
    expect(formatMoment(new Date(2025, 11, 31, 9, 5).toISOString(), "en", now)).toBe("Dec 31, 2025, 9:05 AM");
    expect(formatMoment("not a date", "en", now)).toBe("not a date");
  });

  it("follows a paused sync: looks again just after the pause ends, every 2 s while one runs", () => {
    const now = Date.parse("2026-11-23T10:00:00Z");
    const waiting = (retry_at: string | null) =>
      oura({ connection: connection({ sync_state: "waiting", retry_at }) });
    expect(pollDelay(waiting("2026-11-23T10:00:20Z"), now)).toBe(21_500);
    expect(pollDelay(waiting("2026-11-23T11:30:00Z"), now)).toBe(30_000);
    expect(pollDelay(waiting("2026-11-23T09:59:00Z"), now)).toBe(2000);
    expect(pollDelay(oura({ connection: connection({ sync_state: "running" }) }), now)).toBe(2000);
    expect(pollDelay(oura({ connection: connection() }), now)).toBe(false);
    expect(pollDelay(undefined, now)).toBe(false);
  });

  it("drops the connected message once a sync finds the access refused", async () => {
    const state = { connector: oura({ connection: connection() }) };
    mockApi(state, []);
    const client = newClient();
    renderAt("/data-sources/oura-ring?connect=ok&provider=oura", true, client);
    expect(
      await screen.findByText("Your Oura account is connected. Tonus is bringing in your data now."),
    ).toBeTruthy();
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/is connected/));
    // A later answer of the polled connector leaves the focus where the person has put it.
    const syncNow = screen.getByRole("button", { name: "Sync now" });
    syncNow.focus();
    state.connector = oura({ connection: connection({ last_sync_at: "2026-11-23T09:45:00Z" }) });
    await client.invalidateQueries();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(document.activeElement).toBe(syncNow);
    state.connector = oura({
      connection: connection({
        status: "reconnect_needed",
        last_error: { code: "reconnect_needed", at: "2026-11-23T10:00:00Z" },
      }),
    });
    await client.invalidateQueries();
    expect(await screen.findByText(/no longer accepts Tonus's access/)).toBeTruthy();
    expect(screen.queryByText(/is connected/)).toBeNull();
    // Connected again later: the old message does not come back.
    state.connector = oura({ connection: connection() });
    await client.invalidateQueries();
    await waitFor(() => expect(screen.queryByText(/no longer accepts/)).toBeNull());
    expect(screen.queryByText(/is connected/)).toBeNull();
  });

  it("announces an error that comes while the connected message has the focus, and reads it once", async () => {
    const state = { connector: oura({ connection: connection() }) };
    mockApi(state, []);
    const client = newClient();
    renderAt("/data-sources/oura-ring?connect=ok&provider=oura", true, client);
    await waitFor(() => expect(document.activeElement?.textContent).toMatch(/is connected/));
    // The answer the page came back with has the focus: it is not also a live region.
    expect(liveRegionOf(screen.getByText(/is connected/))).toBeNull();
    state.connector = oura({
      connection: connection({
        status: "reconnect_needed",
        last_error: { code: "reconnect_needed", at: "2026-11-23T10:00:00Z" },
      }),
    });
    await client.invalidateQueries();
    // The focus was on the message, not on what the error replaced: the error is announced.
    expect((await screen.findByRole("alert")).textContent).toMatch(/no longer accepts Tonus's access/);
    // The message goes; its focus goes to the panel's heading, not to the error a second time.
    await waitFor(() => expect(screen.queryByText(/is connected/)).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("heading", { name: /Oura/ })));
  });

  it("says when the vendor turned the API off, offering the export file and only a disconnect", async () => {
    mockApi({ connector: oura({ name: "Fitbit", retired_on: "2026-10-30", connection: connection() }) }, []);
    renderAt();
    expect(
      await screen.findByText(
        "Fitbit turned this API off on October 30, 2026, so Tonus can no longer read it.",
      ),
    ).toBeTruthy();
    expect(screen.getByText(/with the export file this page describes/)).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Sync now" })).toBeNull();
    expect(screen.queryByRole("button", { name: /Connect/ })).toBeNull();
    expect(screen.getByRole("button", { name: "Disconnect" })).toBeTruthy();
  });

  it("speaks Russian", async () => {
    await changeLanguage("ru");
    mockApi({ connector: oura({ connection: connection() }) }, []);
    renderAt("/data-sources/oura-ring?connect=ok&provider=oura");
    expect(await screen.findByRole("heading", { name: "Аккаунт Oura" })).toBeTruthy();
    expect(screen.getByText("Аккаунт Oura подключён. Tonus уже загружает ваши данные.")).toBeTruthy();
    expect(screen.getByText("Прочитано значений").nextElementSibling?.textContent).toBe("36");
    expect(screen.getByText("Вне правдоподобного диапазона: 1")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Синхронизировать сейчас" })).toBeTruthy();
    cleanup();
    mockApi({ connector: oura() }, []);
    renderAt();
    expect(
      await screen.findByText(
        "Подключите аккаунт Oura, и Tonus будет в фоне, примерно раз в час, загружать эти данные: сон, ВСР (RMSSD) и шаги.",
      ),
    ).toBeTruthy();
  });
});
