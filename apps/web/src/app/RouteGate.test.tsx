import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { Profile } from "@tonus/contract";
import { API, SOURCES_API, type SourceDetail } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";

// Pages are lazy chunks; the first import can take over a second on a loaded machine.
configure({ asyncUtilTimeout: 5000 });

import { changeLanguage } from "../i18n/index.ts";
import { configureApiClient } from "../shared/api/client.ts";
import { RouteGate } from "./RouteGate.tsx";

const PROFILE: Profile = {
  id: "u1",
  username: "anna",
  email: "anna@example.org",
  hmac: "h",
  userpic: null,
  is_ios_user: false,
  is_android_user: false,
  billing_status: "none",
  is_customer: true,
  plan: null,
  upgradable: false,
  name: "Anna",
  gender: "female",
  date_of_birth: "1990-05-01",
  height: 170,
  weight: 60,
  units: "metric",
  energy_unit: "kcal",
  newsletter_language: "en",
  timezone: "Europe/Berlin",
  role: "user",
};

type Handler = (method: string, body: unknown) => Response;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function serve(routes: Record<string, Handler>): string[] {
  const seen: string[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input).split("?")[0] ?? "";
      const method = init?.method ?? "GET";
      seen.push(`${method} ${path}`);
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
      const handler = routes[path];
      return handler ? handler(method, body) : json(404, { error: "Not found", code: "not_found" });
    },
  });
  return seen;
}

function renderAt(path: string) {
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

const signedIn: Handler = () => json(200, { authenticated: true, user_type: "full" });
const signedOut: Handler = () => json(200, { authenticated: false, user_type: "anonymous" });

describe("RouteGate", { timeout: 20_000 }, () => {
  afterEach(cleanup);

  it("sends a signed-out visitor from the profile to sign-in with the destination", async () => {
    serve({ [API.session]: signedOut });
    const router = renderAt("/user/profile");
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy();
    expect(router.state.location.pathname).toBe("/auth/signin");
    expect(router.state.location.search).toBe("?destination=%2Fuser%2Fprofile");
  });

  it("shows a signed-in person's profile", async () => {
    serve({ [API.session]: signedIn, [API.profile]: () => json(200, PROFILE) });
    renderAt("/user/profile");
    expect(await screen.findByRole("heading", { level: 1, name: "Profile" })).toBeTruthy();
    expect(await screen.findByText("anna@example.org")).toBeTruthy();
  });

  it("applies a units change at once and shows the server's value again when saving fails", async () => {
    let puts = 0;
    serve({
      [API.session]: signedIn,
      [API.profile]: (method) => {
        if (method === "PUT") {
          puts += 1;
          return json(400, { error: "bad", code: "validation_failed" });
        }
        return json(200, PROFILE);
      },
    });
    renderAt("/user/units");
    const imperial = await screen.findByRole("radio", { name: "Pounds and inches" });
    fireEvent.click(imperial);
    await waitFor(() => expect(puts).toBe(1));
    await waitFor(() =>
      expect((screen.getByRole("radio", { name: "Kilograms and metres" }) as HTMLInputElement).checked).toBe(
        true,
      ),
    );
  });

  it("sends a signed-in person away from sign-in to a safe destination", async () => {
    serve({ [API.session]: signedIn, [API.profile]: () => json(200, PROFILE) });
    const router = renderAt("/auth/signin?destination=https%3A%2F%2Fevil.example");
    await waitFor(() => expect(router.state.location.pathname).toBe("/dashboard"));
  });

  it("shows Upgrade only to upgradable people, and the failed-payment notice when billing failed", async () => {
    serve({
      [API.session]: signedIn,
      [API.profile]: () => json(200, { ...PROFILE, upgradable: true, billing_status: "failed" }),
    });
    renderAt("/terms");
    expect(await screen.findByText("Failed payment, please double-check your payment info")).toBeTruthy();
    expect(screen.getAllByRole("link", { name: "Upgrade" }).length).toBeGreaterThan(0);
    expect(screen.getAllByRole("link", { name: "Academy" }).length).toBeGreaterThan(0);
    cleanup();

    serve({ [API.session]: signedIn, [API.profile]: () => json(200, PROFILE) });
    renderAt("/terms");
    expect((await screen.findAllByRole("link", { name: "Dashboard" })).length).toBeGreaterThan(0);
    expect(screen.queryByRole("link", { name: "Upgrade" })).toBeNull();
    expect(screen.queryByText("Failed payment, please double-check your payment info")).toBeNull();
  });

  it("invites a share viewer to try the product and ends the token session on click", async () => {
    const seen = serve({
      [API.session]: () => json(200, { authenticated: true, user_type: "share" }),
      [API.logout]: () => json(200, { ok: true }),
    });
    const router = renderAt("/terms");
    fireEvent.click(await screen.findByRole("button", { name: "Try Tonus for yourself" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/auth/registration/"));
    expect(seen).toContain(`GET ${API.logout}`);
  });

  it("titles a page with its subject once loaded, in every language, and with the route's title again after it", async () => {
    const oura: SourceDetail = {
      slug: "oura-ring",
      name: "Oura Ring",
      logo_url: "/media/sources/oura-ring.svg",
      categories: ["rings"],
      data_types: ["sleep"],
      method_kinds: [],
      connectable: false,
      state: "none",
      last_import_at: null,
      cloud: "none",
      cloud_connectable: false,
      description: { en: "A ring.", ru: "Кольцо." },
      methods: [],
      last_import: null,
    };
    serve({
      [API.session]: signedIn,
      [API.profile]: () => json(200, PROFILE),
      [SOURCES_API.detail.replace(":slug", "oura-ring")]: () => json(200, oura),
    });
    const router = renderAt("/data-sources/oura-ring");
    expect(await screen.findByRole("heading", { level: 2, name: "Oura Ring" })).toBeTruthy();
    await waitFor(() => expect(document.title).toBe("Oura Ring · Tonus"));
    // The route gate writes the title again when the language changes; the subject stays in it.
    await changeLanguage("ru");
    try {
      await screen.findByRole("heading", { level: 1, name: "Источник данных" });
      expect(document.title).toBe("Oura Ring · Tonus");
    } finally {
      await changeLanguage("en");
    }
    await router.navigate("/terms");
    await waitFor(() => expect(document.title).not.toContain("Oura"));
  });
});
