import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";

// Pages are lazy chunks; the first import can take over a second on a loaded machine.
configure({ asyncUtilTimeout: 5000 });

import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";
import { takeDirectLoginParamsFromLocation } from "./direct-login-params.ts";

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("direct login", { timeout: 20_000 }, () => {
  afterEach(cleanup);

  it("strips the pair from the URL, asks before switching accounts, then goes to the destination", async () => {
    window.history.replaceState(
      null,
      "",
      "/user/login-direct?token=t1&session_id=s1&destination=%2Fuser%2Funits",
    );
    takeDirectLoginParamsFromLocation();
    expect(window.location.search).toBe("?destination=%2Fuser%2Funits");

    const bodies: unknown[] = [];
    let isSignedIn = false;
    configureApiClient({
      fetch: async (input, init) => {
        const path = String(input);
        if (path === API.directLogin) {
          const body = JSON.parse(String(init?.body)) as { confirm_switch?: boolean };
          bodies.push(body);
          if (!body.confirm_switch)
            return json(200, { ok: true, needs_confirmation: true, current_email: "b@example.org" });
          isSignedIn = true;
          return json(200, { ok: true, needs_confirmation: false });
        }
        if (path === API.session) {
          return json(200, { authenticated: isSignedIn, user_type: isSignedIn ? "full" : "anonymous" });
        }
        return json(404, { error: "Not found", code: "not_found" });
      },
    });

    const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
      initialEntries: ["/user/login-direct?destination=%2Fuser%2Funits"],
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );

    const confirm = await screen.findByRole("button", { name: "Switch account" });
    expect(screen.getByText(/b@example\.org/)).toBeTruthy();
    fireEvent.click(confirm);
    await waitFor(() => expect(router.state.location.pathname).toBe("/user/units"));
    expect(bodies).toEqual([
      { token: "t1", session_id: "s1" },
      { token: "t1", session_id: "s1", confirm_switch: true },
    ]);
  });

  it("sends a visit without the pair to sign-in with the destination", async () => {
    configureApiClient({
      fetch: async () => json(200, { authenticated: false, user_type: "anonymous" }),
    });
    const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
      initialEntries: ["/user/login-direct?destination=%2Fuser%2Funits"],
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(router.state.location.pathname).toBe("/auth/signin"));
    expect(router.state.location.search).toBe("?destination=%2Fuser%2Funits");
  });
});
