import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen } from "@testing-library/react";
import { API, BILLING_API, type ConfigEnv, organizeProducts, type Product } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { decideRoute } from "../../app/access.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { ApiError, configureApiClient } from "../../shared/api/client.ts";
import { paymentErrorDetail } from "./billing-format.ts";

configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const product = (over: Partial<Product>): Product => ({
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
  ...over,
});

describe("products (spec §4)", () => {
  it("sort active plans monthly, yearly, then without interval; remember the inactive paid one; drop the gift", () => {
    const list = [
      product({ id: 1, slug: "lifetime", interval: null, plan: "one-time" }),
      product({ id: 2, slug: "yearly-subscription", interval: "year", plan: "annual" }),
      product({ id: 3, slug: "tonusgift", interval: null }),
      product({ id: 4, slug: "monthly-subscription" }),
      product({ id: 5, slug: "old-monthly", active: false, is_paid: true }),
      product({ id: 6, slug: "tonusgift", active: false, is_paid: true }),
      product({ id: 7, slug: "weekly-subscription", interval: "week", plan: "weekly" }),
    ];
    const { plans, paid } = organizeProducts(list);
    expect(plans.map((p) => p.id)).toEqual([4, 2, 7, 1]);
    expect(paid?.id).toBe(5);
  });

  it("send a visitor from / to the plans page", () => {
    const decision = decideRoute({
      pathname: "/",
      search: "",
      hash: "",
      origin: "http://tonus.test",
      userType: "anonymous",
      isWebView: false,
    });
    expect(decision).toEqual({ kind: "navigate", to: "/payments/plans/main/" });
  });
});

describe("payment error text (spec §8)", () => {
  it("uses error, else detail, then the status in parentheses", () => {
    expect(
      paymentErrorDetail(new ApiError(402, "payment_failed", { error: "Your card was declined." })),
    ).toBe("Your card was declined. (402)");
    expect(paymentErrorDetail(new ApiError(400, "validation_failed", { detail: "Bad" } as never))).toBe(
      "Bad (400)",
    );
  });
});

const SANDBOX_CONFIG: ConfigEnv = {
  intercom_key: null,
  analytics_send_to_tonus: false,
  tonus_analytics_token: null,
  chat_widget_url: null,
  help_center_url: "https://help.example",
  billing_mode: "sandbox",
  stripe_publishable_key: null,
  maintenance: false,
};

function renderAt(
  path: string,
  respond: (path: string, init?: RequestInit) => Response,
  config: ConfigEnv = SANDBOX_CONFIG,
) {
  configureApiClient({
    fetch: async (input, init) =>
      String(input).startsWith(API.configEnv) ? json(200, config) : respond(String(input), init),
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

describe("payment pages", { timeout: 20_000 }, () => {
  afterEach(async () => {
    cleanup();
    await changeLanguage("en");
  });

  it("tokenise the card at the sandbox, send only the token, and show a decline as Payment error … (402)", async () => {
    const bodies: Record<string, unknown> = {};
    const router = renderAt("/payment?plan=1", (path, init) => {
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(BILLING_API.products)) return json(200, [product({})]);
      if (path.startsWith(BILLING_API.purchases)) return json(200, []);
      if (path.startsWith(BILLING_API.sandboxTokens)) {
        bodies.token = JSON.parse(String(init?.body));
        return json(200, {
          id: "tok_sbx_1",
          card: { brand: "visa", last4: "0002", exp_month: 1, exp_year: 2099 },
        });
      }
      if (path.startsWith(BILLING_API.pay)) {
        bodies.pay = JSON.parse(String(init?.body));
        return json(402, { error: "Your card was declined.", code: "payment_failed" });
      }
      return json(404, { error: "Not found", code: "not_found" });
    });
    fireEvent.change(await screen.findByLabelText("Card number"), { target: { value: "4000000000000002" } });
    fireEvent.change(screen.getByLabelText("Month (MM)"), { target: { value: "01" } });
    fireEvent.change(screen.getByLabelText("Year (YY)"), { target: { value: "99" } });
    fireEvent.change(screen.getByLabelText("CVC"), { target: { value: "123" } });
    fireEvent.click(screen.getByRole("button", { name: /Pay/ }));
    expect(await screen.findByText("Payment error")).toBeTruthy();
    expect(screen.getByText("Your card was declined. (402)")).toBeTruthy();
    expect(bodies.pay).toEqual({ productId: 1, stripeToken: "tok_sbx_1" });
    expect(JSON.stringify(bodies.pay)).not.toContain("4000000000000002");
    expect(bodies.token).toMatchObject({ number: "4000000000000002", exp_year: "2099" });
    fireEvent.click(screen.getByRole("button", { name: /Back to plans/ }));
    expect(router.state.location.pathname).toBe("/payment");
  });

  it("page the history five at a time and show the empty state in Russian", async () => {
    await changeLanguage("ru");
    renderAt("/payment-history", (path) => {
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(BILLING_API.purchases)) return json(200, []);
      if (path.startsWith(BILLING_API.transactions))
        return json(200, { count: 0, limit: 5, offset: 0, results: [] });
      return json(404, { error: "Not found", code: "not_found" });
    });
    expect(await screen.findByText("Нет платежей")).toBeTruthy();
    expect(screen.getByText("Нет подписок")).toBeTruthy();
  });

  it("load more adds the next five payments", async () => {
    const tx = (i: number) => ({
      id: `t${i}`,
      date: "2026-01-01T00:00:00Z",
      amount: 999,
      currency: "USD",
      description: `Payment ${i}`,
      paid: true,
      status: "succeeded",
    });
    renderAt("/payment-history", (path) => {
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(BILLING_API.purchases)) return json(200, []);
      if (path.startsWith(BILLING_API.transactions)) {
        const offset = Number(new URL(path, "http://x").searchParams.get("offset"));
        const results = [0, 1, 2, 3, 4].map((i) => tx(offset + i)).filter((t) => Number(t.id.slice(1)) < 7);
        return json(200, { count: 7, limit: 5, offset, results });
      }
      return json(404, { error: "Not found", code: "not_found" });
    });
    expect(await screen.findByText("Payment 4")).toBeTruthy();
    expect(screen.queryByText("Payment 5")).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Load more" }));
    expect(await screen.findByText("Payment 6")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Load more" })).toBeNull();
  });

  it("verify a card: the number goes to the sandbox, only the token to verify, and the $1 refund is confirmed", async () => {
    const bodies: unknown[] = [];
    renderAt("/payment-history", (path, init) => {
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(BILLING_API.purchases)) return json(200, []);
      if (path.startsWith(BILLING_API.transactions))
        return json(200, { count: 0, limit: 5, offset: 0, results: [] });
      if (path.startsWith(BILLING_API.sandboxTokens)) return json(200, { id: "tok_sbx_9", card: {} });
      if (path.startsWith(BILLING_API.cardVerify)) {
        bodies.push(JSON.parse(String(init?.body)));
        return json(200, { status: "verified", payment_intent: "pi_1", action_url: null, card: null });
      }
      return json(404, { error: "Not found", code: "not_found" });
    });
    fireEvent.change(await screen.findByLabelText("Card number"), { target: { value: "4242424242424242" } });
    fireEvent.change(screen.getByLabelText("Month (MM)"), { target: { value: "12" } });
    fireEvent.change(screen.getByLabelText("Year (YY)"), { target: { value: "30" } });
    fireEvent.change(screen.getByLabelText("CVC"), { target: { value: "123" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify the card" }));
    expect(await screen.findByText("The card works. The $1 charge has been refunded.")).toBeTruthy();
    expect(bodies).toEqual([{ stripeToken: "tok_sbx_9" }]);
  });
});
