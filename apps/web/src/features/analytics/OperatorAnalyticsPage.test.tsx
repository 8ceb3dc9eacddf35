import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, render, screen } from "@testing-library/react";
import { API, OAUTH_API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";

configure({ asyncUtilTimeout: 5000 });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function renderWith(summary: Response) {
  configureApiClient({
    fetch: async (input) => {
      const path = String(input).split("?")[0];
      if (path === API.session) return json(200, { authenticated: true, user_type: "full" });
      if (path === OAUTH_API.analyticsSummary) return summary.clone();
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
    initialEntries: ["/operator/analytics"],
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

afterEach(async () => {
  cleanup();
  await changeLanguage("en");
});

describe("the operator analytics page", () => {
  it("shows the funnel and daily active people", async () => {
    renderWith(
      json(200, {
        days: 30,
        daily_active_users: [{ date: "2026-11-22", users: 4 }],
        funnel: [
          { step: "sign_up", users: 3 },
          { step: "measurement_completed", users: 2 },
          { step: "upgrade_completed", users: 1 },
        ],
      }),
    );
    expect(await screen.findByText("Signed up")).toBeTruthy();
    expect(screen.getByText("…and upgraded")).toBeTruthy();
    expect(screen.getByText("2026-11-22")).toBeTruthy();
  });

  it("tells a non-operator, in Russian too", async () => {
    await changeLanguage("ru");
    renderWith(json(403, { error: "Operators only", code: "forbidden" }));
    expect(await screen.findByText("Эта страница для операторов.")).toBeTruthy();
  });
});
