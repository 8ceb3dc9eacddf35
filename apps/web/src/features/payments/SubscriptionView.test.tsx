import { cleanup, render, screen } from "@testing-library/react";
import type { Purchase } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { SubscriptionView } from "./SubscriptionView.tsx";

const purchase = (over: Partial<Purchase>): Purchase => ({
  purchase_id: "p1",
  product_id: 1,
  product_slug: "monthly-subscription",
  plan: "monthly",
  title: "Monthly",
  state: "active",
  provider: "stripe",
  next_payment: "2026-03-15T10:00:00Z",
  last_payment: "2026-02-15T10:00:00Z",
  payment_method: "card",
  card: { brand: "visa", last4: "4242", exp_month: 4, exp_year: 2031 },
  current_period_end: "2026-03-15T10:00:00Z",
  ...over,
});

function show(p: Purchase | undefined, language = "en") {
  const router = createMemoryRouter(
    [{ path: "*", element: <SubscriptionView purchase={p} language={language} /> }],
    { initialEntries: ["/payment"] },
  );
  render(<RouterProvider router={router} />);
}

const cancelLink = () => screen.queryByRole("link", { name: /Cancel subscription|Отменить подписку/ });

describe("the subscription view in each state (spec §3 Subscription)", () => {
  afterEach(async () => {
    cleanup();
    await changeLanguage("en");
  });

  it("active: plan, next and last payment, the card with its expiry, and the cancel link", () => {
    show(purchase({}));
    expect(screen.getByRole("region", { name: "Subscription" })).toBeTruthy();
    expect(screen.getByText("Monthly")).toBeTruthy();
    expect(screen.getByText("Next payment").nextElementSibling?.textContent).toBe("March 15, 2026");
    expect(screen.getByText("Last payment").nextElementSibling?.textContent).toBe("February 15, 2026");
    expect(screen.getByText("VISA •••• 4242, expires 04/2031")).toBeTruthy();
    expect(cancelLink()?.getAttribute("href")).toBe("/payment-cancel");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("cancelled: no next payment and no cancel link; PRO stays until the period's end", () => {
    show(purchase({ state: "cancelled", next_payment: null }));
    expect(screen.getByText("The subscription is cancelled; PRO stays until March 15, 2026.")).toBeTruthy();
    expect(screen.queryByText("Next payment")).toBeNull();
    expect(cancelLink()).toBeNull();
  });

  it("outdated tariff: the spec's message to contact support", () => {
    show(purchase({ state: "outdated" }));
    expect(screen.getByText("Your subscription plan is outdated, please contact support")).toBeTruthy();
    expect(cancelLink()).toBeNull();
  });

  it("bought in the App Store or Google Play: managed there, nothing to cancel here", () => {
    show(purchase({ state: "store", provider: "app_store", card: null, payment_method: null }));
    expect(screen.getByText("Bought through the App Store or Google Play: manage it there.")).toBeTruthy();
    expect(screen.queryByText("Payment method")).toBeNull();
    expect(cancelLink()).toBeNull();
  });

  it("none: the empty state", () => {
    show(undefined);
    expect(screen.getByText("No subscriptions")).toBeTruthy();
    expect(screen.queryByRole("region")).toBeNull();
  });

  it("speaks Russian, with Russian dates", async () => {
    await changeLanguage("ru");
    show(purchase({ state: "outdated" }), "ru");
    expect(screen.getByText("Ваш тариф устарел, пожалуйста, свяжитесь с поддержкой")).toBeTruthy();
    expect(screen.getByText("Следующий платёж").nextElementSibling?.textContent).toBe("15 марта 2026 г.");
    expect(screen.getByText("VISA •••• 4242, действует до 04/2031")).toBeTruthy();
  });
});
