import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, BILLING_API, type ConfigEnv, type Product } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";
import { PAYMENT_FOLLOW_UP_MS } from "./billing-api.ts";

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
const PRODUCTS = [
  product({}),
  product({
    id: 2,
    slug: "yearly-subscription",
    interval: "year",
    plan: "annual",
    title: "Annual",
    amount: 5999,
  }),
];
const CONFIG: ConfigEnv = {
  intercom_key: null,
  analytics_send_to_tonus: false,
  tonus_analytics_token: null,
  chat_widget_url: null,
  help_center_url: "https://help.example",
  billing_mode: "sandbox",
  stripe_publishable_key: null,
  maintenance: false,
};

type Call = { path: string; body: unknown; headers: Headers };

/** The payment page against a stand-in server: the coupon TONUS50 halves the monthly plan only. */
function renderCheckout(path: string, payAnswer: () => Response = () => json(200, paid)) {
  const calls: Call[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const url = String(input);
      const body = init?.body ? JSON.parse(String(init.body)) : null;
      calls.push({ path: url, body, headers: new Headers(init?.headers) });
      if (url.startsWith(API.configEnv)) return json(200, CONFIG);
      if (url.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (url.startsWith(BILLING_API.products)) return json(200, PRODUCTS);
      if (url.startsWith(BILLING_API.purchases)) return json(200, []);
      if (url.startsWith(BILLING_API.couponCheck))
        return body.productId === 1 && String(body.coupon).toUpperCase() === "TONUS50"
          ? json(200, { valid: true, coupon: "TONUS50", percent_off: 50, amount: 500, currency: "USD" })
          : json(400, { error: "This promo code is not valid for this plan", code: "validation_failed" });
      if (url.startsWith(BILLING_API.sandboxTokens))
        return json(200, {
          id: `tok_sbx_${calls.length}`,
          card: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2099 },
        });
      if (url.startsWith(BILLING_API.pay)) return payAnswer();
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { calls, router };
}

const paid = {
  status: "succeeded",
  transaction_id: "t1",
  payment_intent: "pi_1",
  action_url: null,
  client_secret: null,
  gift: false,
};

async function fillCard() {
  fireEvent.change(await screen.findByLabelText("Card number"), { target: { value: "4242424242424242" } });
  fireEvent.change(screen.getByLabelText("Month (MM)"), { target: { value: "12" } });
  fireEvent.change(screen.getByLabelText("Year (YY)"), { target: { value: "99" } });
  fireEvent.change(screen.getByLabelText("CVC"), { target: { value: "123" } });
}

describe("checkout", { timeout: 20_000 }, () => {
  afterEach(() => {
    cleanup();
    vi.restoreAllMocks();
  });

  it("applies a coupon to the plan it was checked for only: another ?plan= starts clean", async () => {
    const { calls, router } = renderCheckout("/payment?plan=1");
    fireEvent.change(await screen.findByLabelText("Promo code"), { target: { value: "tonus50" } });
    fireEvent.click(screen.getByRole("button", { name: "Apply" }));
    expect(await screen.findByText("The promo code is applied.")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Pay $5" })).toBeTruthy();

    await router.navigate("/payment?plan=2");
    expect(await screen.findByRole("button", { name: "Pay $59.99" })).toBeTruthy();
    expect(screen.queryByText("The promo code is applied.")).toBeNull();
    expect((screen.getByLabelText("Promo code") as HTMLInputElement).value).toBe("");
    await fillCard();
    fireEvent.click(screen.getByRole("button", { name: "Pay $59.99" }));
    await waitFor(() => expect(calls.some((c) => c.path.startsWith(BILLING_API.pay))).toBe(true));
    const payCall = calls.find((c) => c.path.startsWith(BILLING_API.pay));
    expect(payCall?.body).toMatchObject({ productId: 2 });
    expect(payCall?.body).not.toHaveProperty("coupon");
  });

  it("sends a new Idempotency-Key with each attempt to pay", async () => {
    let answers = 0;
    const { calls } = renderCheckout("/payment?plan=1", () =>
      ++answers === 1
        ? json(402, { error: "Your card was declined.", code: "payment_failed" })
        : json(200, paid),
    );
    await fillCard();
    fireEvent.click(screen.getByRole("button", { name: "Pay $9.99" }));
    expect(await screen.findByText("Your card was declined. (402)")).toBeTruthy();
    await fillCard();
    fireEvent.click(screen.getByRole("button", { name: "Pay $9.99" }));
    expect(await screen.findByText(/Your payment went through/)).toBeTruthy();
    const keys = calls
      .filter((c) => c.path.startsWith(BILLING_API.pay))
      .map((c) => c.headers.get("Idempotency-Key"));
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it("reloads products and connected packages 10 s after a payment, not before (spec §4)", async () => {
    const realSetTimeout = window.setTimeout.bind(window);
    const followUps: (() => void)[] = [];
    vi.spyOn(window, "setTimeout").mockImplementation(((handler: () => void, ms?: number) => {
      if (ms === PAYMENT_FOLLOW_UP_MS) {
        followUps.push(handler);
        return 0;
      }
      return realSetTimeout(handler, ms);
    }) as typeof window.setTimeout);
    const { calls } = renderCheckout("/payment?plan=1");
    await fillCard();
    fireEvent.click(screen.getByRole("button", { name: "Pay $9.99" }));
    expect(await screen.findByText(/Your payment went through/)).toBeTruthy();
    expect(followUps).toHaveLength(1);
    const reads = (prefix: string) => calls.filter((c) => c.path.startsWith(prefix)).length;
    const before = { products: reads(BILLING_API.products), purchases: reads(BILLING_API.purchases) };
    // Nothing is reloaded on the payment's own answer (the webhook decides what was paid)…
    await new Promise((resolve) => realSetTimeout(resolve, 50));
    expect({ products: reads(BILLING_API.products), purchases: reads(BILLING_API.purchases) }).toEqual(
      before,
    );
    // …and everything is when the 10 s are up.
    followUps[0]?.();
    await waitFor(() => {
      expect(reads(BILLING_API.products)).toBeGreaterThan(before.products);
      expect(reads(BILLING_API.purchases)).toBeGreaterThan(before.purchases);
    });
  });
});
