import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { type AnalyticsEvent, API, BILLING_API, type ConfigEnv, OAUTH_API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";
import { getUploadQueue, setQueueOwner } from "../measure/measure-api.ts";
import { Analytics } from "./Analytics.tsx";

configure({ asyncUtilTimeout: 5000 });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const PERSON = "0b6f3c2a-7d51-4c1e-9a43-5d3c1d1b2a77";

const config = (over: Partial<ConfigEnv> = {}): ConfigEnv => ({
  intercom_key: null,
  analytics_send_to_tonus: true,
  tonus_analytics_token: "public-analytics-token",
  chat_widget_url: null,
  help_center_url: "https://help.example",
  billing_mode: "sandbox",
  stripe_publishable_key: null,
  maintenance: false,
  ...over,
});

/** What reached `POST /api/v1/send` (analytics posts with the browser's fetch, without cookies). */
let sent: { token: string | null; event: AnalyticsEvent }[] = [];

beforeEach(() => {
  sent = [];
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input) === OAUTH_API.analyticsSend) {
      const headers = (init?.headers ?? {}) as Record<string, string>;
      sent.push({ token: headers["X-Analytics-Token"] ?? null, event: JSON.parse(String(init?.body)) });
      return json(200, { stored: 1, duplicates: 0, dropped: 0 });
    }
    return json(404, { error: "Not found", code: "not_found" });
  });
});

afterEach(() => {
  setQueueOwner(null);
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
});

const funnel = () => sent.filter((s) => s.event.event_name !== "page_view");

function renderApp(
  path: string,
  respond: (path: string, init?: RequestInit) => Response | null,
  env = config(),
) {
  configureApiClient({
    fetch: async (input, init) => {
      const url = String(input);
      if (url.startsWith(API.configEnv)) return json(200, env);
      return respond(url, init) ?? json(404, { error: "Not found", code: "not_found" });
    },
  });
  const router = createMemoryRouter(
    [
      {
        path: "*",
        element: (
          <>
            <RouteGate />
            <Analytics />
          </>
        ),
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

/** A registration where the session turns full once the account exists. */
function registration() {
  let registered = false;
  return (url: string) => {
    if (url.startsWith(API.session))
      return json(
        200,
        registered
          ? { authenticated: true, user_type: "full" }
          : { authenticated: false, user_type: "anonymous" },
      );
    if (url.startsWith(API.register)) {
      registered = true;
      return json(200, { ok: true });
    }
    if (url.startsWith(API.profile) && registered) return json(200, { id: PERSON, name: "New" });
    return null;
  };
}

async function register() {
  fireEvent.change(await screen.findByLabelText("Email"), { target: { value: "new@example.test" } });
  fireEvent.change(screen.getByLabelText("Password"), { target: { value: "Correct-horse-9" } });
  fireEvent.click(screen.getByRole("button", { name: "Create account" }));
}

describe("the funnel events the web app sends (sign-up → measurement → upgrade)", { timeout: 20_000 }, () => {
  it("sends sign_up for the new person once the account exists, with the token and no health values", async () => {
    renderApp("/auth/registration/", registration());
    await register();
    await waitFor(() => expect(funnel()).toHaveLength(1));
    const [signUp] = funnel();
    expect(signUp?.token).toBe("public-analytics-token");
    expect(signUp?.event).toMatchObject({
      event_name: "sign_up",
      user_id: PERSON,
      event_props: { method: "email" },
    });
    expect(signUp?.event.device_id).toEqual(expect.any(String));
  });

  it("sends nothing at all when the config does not allow it, or the browser sends GPC", async () => {
    renderApp("/auth/registration/", registration(), config({ analytics_send_to_tonus: false }));
    await register();
    await screen.findByLabelText("Email");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sent).toEqual([]);
    cleanup();
    Object.defineProperty(navigator, "globalPrivacyControl", { value: true, configurable: true });
    try {
      renderApp("/auth/registration/", registration());
      await register();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sent).toEqual([]);
    } finally {
      Reflect.deleteProperty(navigator, "globalPrivacyControl");
    }
  });

  it("sends measurement_completed when a saved measurement reaches the server, once per measurement", async () => {
    const clientId = "c1d2e3f4-1111-4222-8333-944455556666";
    let uploads = 0;
    renderApp("/dashboard", (url, init) => {
      if (url.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (url.startsWith(API.profile)) return json(200, { id: PERSON });
      if (url.startsWith(API.measurements) && init?.method === "POST") {
        uploads++;
        return json(uploads === 1 ? 201 : 200, { id: "m-1", stress: 88 });
      }
      return null;
    });
    await waitFor(() => expect(sent.some((s) => s.event.event_name === "page_view")).toBe(true));
    const upload = {
      client_id: clientId,
      rr_ms: Array.from({ length: 60 }, () => 800),
      source: "camera" as const,
      started_at: "2026-11-22T08:00:00Z",
      time_zone: "UTC",
    };
    // The app shell tells the queue who is signed in (UploadQueueSync).
    setQueueOwner(PERSON);
    await getUploadQueue().enqueue(clientId, PERSON, upload);
    // The same measurement again (a retry after a lost answer): the same event id, stored once.
    await getUploadQueue().enqueue(clientId, PERSON, upload);
    await waitFor(() => expect(funnel()).toHaveLength(2));
    for (const { event } of funnel()) {
      expect(event).toMatchObject({
        event_id: clientId,
        event_name: "measurement_completed",
        user_id: PERSON,
        event_props: { source: "camera" },
      });
      // No measured value (the stress of 88, the 800 ms intervals) leaks into the event: it holds these
      // fields only, its properties only the source, and the rest are ids, the clock and the zone. (A
      // search of the whole text for "88" failed whenever the random device id or the clock held it.)
      expect(Object.keys(event).sort()).toEqual([
        "date_created",
        "device_id",
        "event_id",
        "event_name",
        "event_props",
        "timezone",
        "user_id",
      ]);
      expect(event.event_props).toEqual({ source: "camera" });
      expect(event.device_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(event.date_created))).toBe(false);
    }
  });

  it("sends upgrade_completed after a successful subscription payment, not after a decline", async () => {
    let declined = true;
    const product = {
      id: 1,
      slug: "monthly-subscription",
      active: true,
      is_paid: false,
      interval: "month",
      interval_count: 1,
      plan: "monthly",
      title: "Monthly",
      currency: "USD",
      amount: 999,
      discount_percent: null,
      trial_days: null,
    };
    renderApp("/payment?plan=1", (url) => {
      if (url.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (url.startsWith(API.profile)) return json(200, { id: PERSON });
      if (url.startsWith(BILLING_API.products)) return json(200, [product]);
      if (url.startsWith(BILLING_API.purchases)) return json(200, []);
      if (url.startsWith(BILLING_API.sandboxTokens))
        return json(200, {
          id: "tok_sbx_1",
          card: { brand: "visa", last4: "4242", exp_month: 1, exp_year: 2099 },
        });
      if (url.startsWith(BILLING_API.pay)) {
        if (declined) return json(402, { error: "Your card was declined.", code: "payment_failed" });
        return json(200, {
          status: "succeeded",
          transaction_id: "tr_1",
          payment_intent: null,
          action_url: null,
          client_secret: null,
          gift: false,
        });
      }
      return null;
    });
    const pay = async () => {
      fireEvent.change(await screen.findByLabelText("Card number"), {
        target: { value: "4242424242424242" },
      });
      fireEvent.change(screen.getByLabelText("Month (MM)"), { target: { value: "01" } });
      fireEvent.change(screen.getByLabelText("Year (YY)"), { target: { value: "99" } });
      fireEvent.change(screen.getByLabelText("CVC"), { target: { value: "123" } });
      fireEvent.click(screen.getByRole("button", { name: /Pay/ }));
    };
    await pay();
    expect(await screen.findByText("Payment error")).toBeTruthy();
    expect(funnel()).toEqual([]);
    declined = false;
    await pay();
    await waitFor(() => expect(funnel()).toHaveLength(1));
    expect(funnel()[0]?.event).toMatchObject({
      event_name: "upgrade_completed",
      user_id: PERSON,
      event_props: { plan: "monthly-subscription" },
    });
  });
});
