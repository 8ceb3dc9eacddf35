import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { forgetEverything } from "../auth/auth-api.ts";
import LogoutPage from "../auth/LogoutPage.tsx";
import { setQueueOwner } from "./measure-api.ts";
import { UploadQueueSync } from "./UploadQueueSync.tsx";
import { QUEUE_STORAGE_KEY, type QueuedUpload } from "./upload-queue.ts";

configure({ asyncUtilTimeout: 5000 });

const ALICE = "6b1d9f7e-0000-4000-8000-00000000a11c";
const BOB = "6b1d9f7e-0000-4000-8000-0000000000b0";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function item(clientId: string, ownerId: string): QueuedUpload<unknown> {
  return {
    clientId,
    ownerId,
    payload: { client_id: clientId, rr_ms: [800], source: "file" },
    queuedAtMs: 1,
    attempts: 2,
  };
}

const queued = () =>
  (JSON.parse(localStorage.getItem(QUEUE_STORAGE_KEY) ?? "[]") as QueuedUpload<unknown>[]).map(
    (i) => i.clientId,
  );

/** A server where ALICE is signed in; uploads fail while `offline`. */
function server(state: { offline: boolean }) {
  const posted: string[] = [];
  const calls: string[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input);
      calls.push(`${init?.method ?? "GET"} ${path}`);
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(API.profile)) return json(200, { id: ALICE });
      if (path.startsWith(API.measurements) && init?.method === "POST") {
        if (state.offline) throw new TypeError("Failed to fetch");
        const body = JSON.parse(String(init.body)) as { client_id: string };
        posted.push(body.client_id);
        return json(201, { id: `m-${body.client_id}` });
      }
      if (path.startsWith(API.logout)) return json(200, {});
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  return { posted, calls };
}

function renderAt(path: string, element: React.ReactNode) {
  const router = createMemoryRouter(
    [
      { path: "/user/logout", element },
      { path: "/dashboard", element },
      { path: "/measure", element: <p>measure page</p> },
      { path: "/auth/signin", element: <p>sign-in page</p> },
    ],
    { initialEntries: [path] },
  );
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { router, queryClient };
}

beforeEach(() => {
  localStorage.setItem(QUEUE_STORAGE_KEY, JSON.stringify([item("a-1", ALICE), item("b-1", BOB)]));
});

afterEach(async () => {
  cleanup();
  setQueueOwner(null);
  localStorage.clear();
  await changeLanguage("en");
});

describe("the offline queue in the app", () => {
  it("uploads the signed-in account's waiting measurements as the app starts, on any page, and only those", async () => {
    const { posted } = server({ offline: false });
    renderAt("/dashboard", <UploadQueueSync />);
    await waitFor(() => expect(posted).toEqual(["a-1"]));
    expect(queued()).toEqual(["b-1"]);
  });

  it("logout uploads what it can, then asks before deleting what is still waiting", async () => {
    const state = { offline: true };
    const { calls, posted } = server(state);
    const { router } = renderAt("/user/logout", <LogoutPage />);
    expect(
      await screen.findByText(
        "1 measurement taken on this device has not been uploaded yet. Logging out deletes it from this device.",
      ),
    ).toBeTruthy();
    expect(calls.some((c) => c.startsWith(`POST ${API.measurements}`))).toBe(true);
    expect(calls.some((c) => c.includes(API.logout))).toBe(false);
    // Staying keeps the session and the measurement.
    fireEvent.click(screen.getByRole("button", { name: "Stay signed in" }));
    expect(await screen.findByText("measure page")).toBeTruthy();
    expect(router.state.location.pathname).toBe("/measure");
    expect(calls.some((c) => c.includes(API.logout))).toBe(false);
    expect(queued()).toEqual(["a-1", "b-1"]);
    expect(posted).toEqual([]);
  });

  it("logging out anyway deletes the waiting measurements with everything else", async () => {
    const { calls } = server({ offline: true });
    await changeLanguage("ru");
    localStorage.setItem(
      QUEUE_STORAGE_KEY,
      JSON.stringify([item("a-1", ALICE), item("a-2", ALICE), item("b-1", BOB)]),
    );
    renderAt("/user/logout", <LogoutPage />);
    expect(
      await screen.findByText(
        "2 измерения, сделанные на этом устройстве, ещё не загружены. При выходе они будут удалены с устройства.",
      ),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Выйти и удалить их" }));
    expect(await screen.findByText("sign-in page")).toBeTruthy();
    expect(calls.some((c) => c.includes(API.logout))).toBe(true);
    expect(localStorage.getItem(QUEUE_STORAGE_KEY)).toBeNull();
  });

  it("logs out at once when nothing is waiting, or when everything could be uploaded first", async () => {
    const { posted } = server({ offline: false });
    renderAt("/user/logout", <LogoutPage />);
    expect(await screen.findByText("sign-in page")).toBeTruthy();
    expect(posted).toEqual(["a-1"]);
  });

  it("keeps the queue when the session ends without a logout, and clears it at a logout", () => {
    const queryClient = new QueryClient();
    forgetEverything(queryClient, { keepUploadQueue: true });
    expect(queued()).toEqual(["a-1", "b-1"]);
    forgetEverything(queryClient);
    expect(localStorage.getItem(QUEUE_STORAGE_KEY)).toBeNull();
  });
});
