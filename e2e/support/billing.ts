// Billing seeds for e2e/specs/billing.spec.ts and referral.spec.ts: the promo code the server starts with,
// a measurement to see the PRO gate on, card verifications made through the API (history rows), and the
// sandbox's test cards (Stripe's own test numbers).
import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { API, BILLING_API } from "@tonus/contract";
import { csrfHeaders } from "./seed.ts";

/** 20 % off the monthly plan; e2e/support/server.ts makes it with `npm run cli -- coupon-add`. */
export const E2E_COUPON = "E2E20";

export const CARDS = {
  ok: "4242 4242 4242 4242",
  declined: "4000 0000 0000 0002",
  threeDSecure: "4000 0027 6000 3184",
} as const;

/** A 5-minute strap measurement (320 beats around 75 bpm), enough for the full decoding. */
export async function uploadMeasurement(request: APIRequestContext, baseURL: string): Promise<string> {
  const rr = Array.from({ length: 320 }, (_, i) =>
    Math.round(800 + 45 * Math.sin(i * 0.35) + ((i * 7919) % 41) - 20),
  );
  const res = await request.post(API.measurements, {
    headers: await csrfHeaders(request, baseURL),
    data: {
      client_id: randomUUID(),
      rr_ms: rr,
      source: "strap",
      device: "e2e strap",
      started_at: new Date(Date.now() - 3_600_000).toISOString(),
      time_zone: "Europe/Moscow",
    },
  });
  if (!res.ok()) throw new Error(`measurement upload failed: ${res.status()} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Verifies the 4242 card through the API (charged and refunded): one more row in the history. */
export async function verifyCardViaApi(request: APIRequestContext, baseURL: string): Promise<void> {
  const token = await request.post(BILLING_API.sandboxTokens, {
    data: { number: CARDS.ok, exp_month: 12, exp_year: 2099, cvc: "123" },
    headers: await csrfHeaders(request, baseURL),
  });
  const { id } = (await token.json()) as { id: string };
  const res = await request.post(BILLING_API.cardVerify, {
    data: { stripeToken: id },
    headers: await csrfHeaders(request, baseURL),
  });
  if (!res.ok()) throw new Error(`card verification failed: ${res.status()} ${await res.text()}`);
}
