import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, BILLING_API, type ConfigEnv, type Product } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";
import { STRIPE_JS_URL, type StripeJs } from "./stripe-js.ts";

/**
 * The card entry chooses its provider from the server's billing mode (config/env). Stripe.js lives at
 * js.stripe.com, outside this machine: where a test needs it, a stand-in `window.Stripe` takes its place
 * and records what the page asks of it (mocked: Stripe.js itself, nothing of ours).
 */
configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const config = (over: Partial<ConfigEnv>): ConfigEnv => ({
  intercom_key: null,
  analytics_send_to_tonus: false,
  tonus_analytics_token: null,
  chat_widget_url: null,
  help_center_url: "https://help.example",
  billing_mode: "sandbox",
  stripe_publishable_key: null,
  maintenance: false,
  ...over,
});

const monthly: Product = {
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

function renderCheckout(env: ConfigEnv, onPay: (body: unknown) => Response) {
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input);
      if (path.startsWith(API.configEnv)) return json(200, env);
      if (path.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      if (path.startsWith(BILLING_API.products)) return json(200, [monthly]);
      if (path.startsWith(BILLING_API.purchases)) return json(200, []);
      if (path.startsWith(BILLING_API.pay)) return onPay(JSON.parse(String(init?.body)));
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
    initialEntries: ["/payment?plan=1"],
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

function stripeStandIn() {
  const seen = {
    created: [] as [string, unknown][],
    mounted: [] as HTMLElement[],
    nextActions: [] as unknown[],
  };
  const card = { mount: (el: HTMLElement) => void seen.mounted.push(el), destroy() {}, on() {} };
  const stripe: StripeJs = {
    elements: () => ({ create: () => card }),
    createPaymentMethod: async () => ({ paymentMethod: { id: "pm_from_stripe_js" } }),
    handleNextAction: async (input) => {
      seen.nextActions.push(input);
      return { paymentIntent: { id: "pi_3ds", status: "succeeded" } };
    },
  };
  window.Stripe = (key, options) => {
    seen.created.push([key, options]);
    return stripe;
  };
  return seen;
}

const stripeScripts = () => document.head.querySelectorAll(`script[src="${STRIPE_JS_URL}"]`);

describe("card entry by billing mode", { timeout: 20_000 }, () => {
  afterEach(() => {
    cleanup();
    delete window.Stripe;
    for (const script of stripeScripts()) script.remove();
  });

  it("shows the sandbox's own fields and loads nothing from Stripe in sandbox mode", async () => {
    renderCheckout(config({}), () => json(500, {}));
    expect(await screen.findByLabelText("Card number")).toBeTruthy();
    expect(stripeScripts()).toHaveLength(0);
  });

  it("loads Stripe.js from js.stripe.com in Stripe mode and mounts Stripe's card field instead of ours", async () => {
    // The test DOM loads no scripts: the script element the page adds is taken here instead, and it
    // "arrives" a moment later with the stand-in in place, as Stripe.js would.
    const arrived: { seen: ReturnType<typeof stripeStandIn> | null } = { seen: null };
    const added: HTMLScriptElement[] = [];
    const head = document.head;
    const append = head.append.bind(head);
    head.append = (...nodes: (Node | string)[]) => {
      for (const node of nodes) {
        if (!(node instanceof HTMLScriptElement)) continue;
        added.push(node);
        setTimeout(() => {
          arrived.seen = stripeStandIn();
          node.dispatchEvent(new Event("load"));
        }, 0);
      }
    };
    try {
      renderCheckout(config({ billing_mode: "stripe", stripe_publishable_key: "pk_test_load" }), () =>
        json(500, {}),
      );
      await waitFor(() => expect(arrived.seen?.mounted).toHaveLength(1));
    } finally {
      head.append = append;
    }
    const seen = arrived.seen;
    expect(added.map((script) => [script.src, script.async])).toEqual([[STRIPE_JS_URL, true]]);
    expect(seen?.created).toEqual([["pk_test_load", { locale: "en" }]]);
    expect(seen?.mounted[0]?.dataset.testid).toBe("stripe-card");
    expect(screen.getByText("Card number, expiry date and CVC")).toBeTruthy();
    expect(screen.queryByLabelText("Card number")).toBeNull();
  });

  it("says card payments are unavailable when Stripe.js does not come up (blocked, offline)", async () => {
    renderCheckout(config({ billing_mode: "stripe", stripe_publishable_key: "pk_test_blocked" }), () =>
      json(500, {}),
    );
    expect(await screen.findByText(/Card payments are not available/)).toBeTruthy();
    expect(stripeScripts()).toHaveLength(1);
  });

  it("pays with the PaymentMethod Stripe.js made and confirms 3-D Secure with handleNextAction", async () => {
    const seen = stripeStandIn();
    const payments: unknown[] = [];
    renderCheckout(config({ billing_mode: "stripe", stripe_publishable_key: "pk_test_pay" }), (body) => {
      payments.push(body);
      return payments.length === 1
        ? json(200, {
            status: "requires_action",
            transaction_id: "t1",
            payment_intent: "pi_3ds",
            action_url: null,
            client_secret: "pi_3ds_secret_abc",
            gift: false,
          })
        : json(200, {
            status: "succeeded",
            transaction_id: "t1",
            payment_intent: "pi_3ds",
            action_url: null,
            client_secret: null,
            gift: false,
          });
    });
    await waitFor(() => expect(seen.mounted).toHaveLength(1));
    fireEvent.click(screen.getByRole("button", { name: /Pay/ }));
    expect(await screen.findByText(/Your payment went through/)).toBeTruthy();
    expect(seen.nextActions).toEqual([{ clientSecret: "pi_3ds_secret_abc" }]);
    expect(payments).toEqual([
      { productId: 1, stripeToken: "pm_from_stripe_js" },
      { productId: 1, stripe3dToken: "pi_3ds" },
    ]);
  });

  it("offers to open the bank's window again when Stripe.js could not finish 3-D Secure", async () => {
    const seen = stripeStandIn();
    const stripe = window.Stripe?.("pk_test_retry");
    if (!stripe) throw new Error("no stand-in");
    let calls = 0;
    const original = stripe.handleNextAction;
    window.Stripe = () => ({
      ...stripe,
      handleNextAction: async (input) => {
        if (++calls === 1) throw new Error("network");
        return original(input);
      },
    });
    const payments: unknown[] = [];
    renderCheckout(config({ billing_mode: "stripe", stripe_publishable_key: "pk_test_retry" }), (body) => {
      payments.push(body);
      return json(200, {
        status: payments.length === 1 ? "requires_action" : "succeeded",
        transaction_id: "t1",
        payment_intent: "pi_3ds",
        action_url: null,
        client_secret: payments.length === 1 ? "pi_3ds_secret_r" : null,
        gift: false,
      });
    });
    await waitFor(() => expect(seen.mounted).toHaveLength(1));
    fireEvent.click(screen.getByRole("button", { name: /Pay/ }));
    expect(await screen.findByText(/The confirmation was not completed/)).toBeTruthy();
    expect(payments).toHaveLength(1);
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText(/Your payment went through/)).toBeTruthy();
    expect(calls).toBe(2);
    expect(payments).toEqual([
      { productId: 1, stripeToken: "pm_from_stripe_js" },
      { productId: 1, stripe3dToken: "pi_3ds" },
    ]);
  });

  it("says card payments are unavailable when Stripe mode lacks its publishable key", async () => {
    renderCheckout(config({ billing_mode: "stripe", stripe_publishable_key: null }), () => json(500, {}));
    expect(await screen.findByText(/Card payments are not available/)).toBeTruthy();
    expect(stripeScripts()).toHaveLength(0);
  });
});
