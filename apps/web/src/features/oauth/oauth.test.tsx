import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, type ConnectedService, OAUTH_API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { decideRoute } from "../../app/access.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { findRoute } from "../../app/routes.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { ConnectedServices } from "./ConnectedServices.tsx";

configure({ asyncUtilTimeout: 5000 });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

type Call = { path: string; method: string; body: unknown };

function mockApi(signedIn: boolean, calls: Call[], services: ConnectedService[] = []) {
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input).split("?")[0] ?? "";
      const method = init?.method ?? "GET";
      calls.push({ path, method, body: init?.body ? JSON.parse(String(init.body)) : undefined });
      if (path === API.session)
        return json(200, { authenticated: signedIn, user_type: signedIn ? "full" : "anonymous" });
      if (path === OAUTH_API.request.replace(":id", "req-1"))
        return json(200, {
          id: "req-1",
          client: { id: "ifttt", name: "IFTTT" },
          scopes: ["ifttt"],
          redirect_origin: "https://ifttt.com",
        });
      if (path === OAUTH_API.decision.replace(":id", "req-1"))
        return json(200, { redirect_to: "https://ifttt.com/channels/tonus/authorize?code=c&state=s" });
      if (path === OAUTH_API.connectedServices) return json(200, { results: services });
      if (method === "DELETE") {
        services.splice(0, services.length);
        return json(200, { ok: true });
      }
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
}

function renderAt(path: string) {
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

afterEach(async () => {
  cleanup();
  await changeLanguage("en");
});

describe("the consent page /oauth2/authorize/ifttt", () => {
  it("is an 'any' route whose request query does not trigger the scope=ifttt forwarding", () => {
    expect(findRoute("/oauth2/authorize/ifttt")?.access).toBe("any");
    const decision = decideRoute({
      pathname: "/oauth2/authorize/ifttt",
      search: "?request=req-1",
      hash: "",
      origin: "http://localhost",
      userType: "anonymous",
      isWebView: false,
    });
    expect(decision.kind).toBe("render");
  });

  it("names the client and what it may do, and sends the decision", async () => {
    const calls: Call[] = [];
    mockApi(true, calls);
    renderAt("/oauth2/authorize/ifttt?request=req-1");
    expect(await screen.findByText("IFTTT asks for access to your Tonus account.")).toBeTruthy();
    expect(screen.getByText(/log blood pressure, weight and water/)).toBeTruthy();
    expect(screen.getByText("After your answer you return to https://ifttt.com.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Allow IFTTT" }));
    await waitFor(() =>
      expect(calls).toContainEqual({
        path: OAUTH_API.decision.replace(":id", "req-1"),
        method: "POST",
        body: { approve: true },
      }),
    );
  });

  it("shows the consent in Russian", async () => {
    await changeLanguage("ru");
    mockApi(true, []);
    renderAt("/oauth2/authorize/ifttt?request=req-1");
    expect(await screen.findByText("IFTTT запрашивает доступ к вашему аккаунту Tonus.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Отказать" })).toBeTruthy();
  });

  it("sends a signed-out visitor to sign-in and keeps the request in the destination", async () => {
    mockApi(false, []);
    const router = renderAt("/oauth2/authorize/ifttt?request=req-1");
    await waitFor(() => expect(router.state.location.pathname).toBe("/auth/signin"));
    expect(new URLSearchParams(router.state.location.search).get("destination")).toBe(
      "/oauth2/authorize/ifttt?request=req-1",
    );
  });

  it("says so when the request is unknown or expired", async () => {
    mockApi(true, []);
    renderAt("/oauth2/authorize/ifttt?request=other");
    expect(await screen.findByText(/missing or has expired/)).toBeTruthy();
  });
});

describe("connected services", () => {
  it("lists the services with access and revokes one", async () => {
    const calls: Call[] = [];
    mockApi(true, calls, [
      {
        id: "g-1",
        client_id: "ifttt",
        name: "IFTTT",
        scopes: ["ifttt"],
        connected: "2026-11-20T10:00:00Z",
        last_used: null,
      },
    ]);
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <ConnectedServices />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("IFTTT")).toBeTruthy();
    expect(screen.getByText("Not used yet")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Revoke access for IFTTT" }));
    expect(await screen.findByText("No service has access to your account.")).toBeTruthy();
    expect(calls.some((c) => c.method === "DELETE" && c.path.endsWith("/connected-services/g-1/"))).toBe(
      true,
    );
  });
});
