// Seed helpers of the dashboard specs (issue 5): a customer through the sandbox payment provider and a
// few weeks of data through the public API (measurements with tags, typed-in values, blood pressure).
import type { APIRequestContext } from "@playwright/test";
import { API, BILLING_API, type Product } from "@tonus/contract";
import { csrfHeaders } from "./seed.ts";

/** Stripe's (and the sandbox's) test card that always succeeds. */
const CARD_OK = "4242 4242 4242 4242";
const DAY_MS = 86_400_000;

async function ok(response: Awaited<ReturnType<APIRequestContext["get"]>>, what: string) {
  if (!response.ok()) throw new Error(`${what} failed: ${response.status()} ${await response.text()}`);
  return response;
}

/**
 * Buys the monthly plan with the sandbox card (e2e runs BILLING_MODE=sandbox): the card is tokenised at
 * the sandbox's stand-in for Stripe.js, then paid for; the user is a customer afterwards.
 */
export async function becomeCustomer(request: APIRequestContext, baseURL: string): Promise<void> {
  const products = (await (
    await ok(await request.get(BILLING_API.products, { headers: { "accept-language": "en" } }), "products")
  ).json()) as Product[];
  const monthly = products.find((p) => p.slug === "monthly-subscription" && p.active);
  if (!monthly) throw new Error("no monthly plan for sale");
  const headers = await csrfHeaders(request, baseURL);
  const token = (await (
    await ok(
      await request.post(BILLING_API.sandboxTokens, {
        data: { number: CARD_OK, exp_month: 12, exp_year: 2099, cvc: "123" },
        headers,
      }),
      "card tokenisation",
    )
  ).json()) as { id: string };
  const paid = (await (
    await ok(
      await request.post(BILLING_API.pay, {
        data: { productId: monthly.id, stripeToken: token.id },
        headers,
      }),
      "payment",
    )
  ).json()) as { status: string };
  if (paid.status !== "succeeded") throw new Error(`payment ended as ${paid.status}`);
}

/** Two minutes of RR intervals around `meanMs`, with breathing-like variation of `spreadMs`. */
function rrSeries(meanMs: number, spreadMs: number): number[] {
  return Array.from({ length: 150 }, (_, i) =>
    Math.round(meanMs + spreadMs * Math.sin(i / 2.5) + ((i * 37) % 11)),
  );
}

/** Measurements the dashboard specs rely on: days ago, tags, and the RR rhythm. */
export const SEEDED_MEASUREMENTS = [
  { daysAgo: 1, tags: ["morning"], meanMs: 820, spreadMs: 45 },
  { daysAgo: 3, tags: ["morning", "coffee"], meanMs: 760, spreadMs: 25 },
  { daysAgo: 6, tags: ["evening"], meanMs: 900, spreadMs: 60 },
  { daysAgo: 9, tags: ["morning"], meanMs: 840, spreadMs: 50 },
  { daysAgo: 20, tags: ["evening", "coffee"], meanMs: 740, spreadMs: 20 },
] as const;

/** Weight typed in (kg) on these days ago; the newest is today. */
export const SEEDED_WEIGHTS = [
  { daysAgo: 0, kg: 81.4 },
  { daysAgo: 4, kg: 82.1 },
  { daysAgo: 12, kg: 83 },
] as const;

/** The seeded account's time zone (registerViaApi's). */
export const SEED_TIME_ZONE = "Europe/Moscow";

/** The local day of an instant in the seeded account's time zone. */
export function localDayOf(iso: string): string {
  return new Intl.DateTimeFormat("en-CA", {
    timeZone: SEED_TIME_ZONE,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).format(new Date(iso));
}

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
export const addDays = (day: string, days: number) =>
  new Date(dayMs(day) + days * DAY_MS).toISOString().slice(0, 10);

/** The first day of the week holding `day` (weekStart as Date#getDay: 1 Monday, 0 Sunday). */
export function weekOf(day: string, weekStart: 0 | 1): string {
  const weekday = new Date(dayMs(day)).getUTCDay();
  return addDays(day, -((weekday - weekStart + 7) % 7));
}

export type SeededDays = { measurements: string[]; weights: string[]; bp: string[] };

/**
 * A few weeks of data in the account behind `request`, through the same API the apps use; answers the
 * local days (in the account's zone) each kind of data landed on.
 */
export async function seedDashboardData(request: APIRequestContext, baseURL: string): Promise<SeededDays> {
  const days: SeededDays = { measurements: [], weights: [], bp: [] };
  const headers = await csrfHeaders(request, baseURL);
  const noon = (daysAgo: number, hour = 9) => {
    const day = new Date(Date.now() - daysAgo * DAY_MS);
    day.setUTCHours(hour, 0, 0, 0);
    // Never in the future: "today" at 09:00 UTC may not have come yet.
    return new Date(Math.min(day.getTime(), Date.now() - 60_000)).toISOString();
  };
  for (const m of SEEDED_MEASUREMENTS) {
    const at = noon(m.daysAgo, 5);
    days.measurements.push(localDayOf(at));
    await ok(
      await request.post(API.measurements, {
        data: {
          client_id: crypto.randomUUID(),
          rr_ms: rrSeries(m.meanMs, m.spreadMs),
          source: "file",
          started_at: at,
          time_zone: SEED_TIME_ZONE,
          tags: [...m.tags],
        },
        headers,
      }),
      "measurement upload",
    );
  }
  for (const w of SEEDED_WEIGHTS) {
    const at = noon(w.daysAgo);
    days.weights.push(localDayOf(at));
    await ok(
      await request.post(API.chartValues, {
        data: { client_id: crypto.randomUUID(), metric: "weight", value: w.kg, unit: "kg", at },
        headers,
      }),
      "weight entry",
    );
  }
  for (const [daysAgo, systolic, diastolic] of [
    [2, 128, 82],
    [5, 135, 86],
  ] as const) {
    const at = noon(daysAgo, 6);
    days.bp.push(localDayOf(at));
    await ok(
      await request.post(API.bpReadings, {
        data: { systolic, diastolic, pulse: 70, measured_at: at, time_zone: SEED_TIME_ZONE },
        headers,
      }),
      "blood-pressure reading",
    );
  }
  return days;
}
