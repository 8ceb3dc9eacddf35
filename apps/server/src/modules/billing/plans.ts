import { CurrencySchema, GIFT_PRODUCT_SLUG, IntervalSchema, PlanKindSchema } from "@tonus/contract";
import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client.ts";
import { billingProducts } from "../../db/schema.ts";

/**
 * The operator's plan file (`npm run cli -- plans-import FILE`): one entry per product and currency.
 * Products are matched by (slug, currency); an entry left out of a later file is not deleted but
 * deactivated, so people who pay for it keep it ("outdated tariff").
 */
export const PlanEntrySchema = z
  .object({
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/),
    plan: PlanKindSchema,
    currency: CurrencySchema,
    /** Minor units (cents, kopecks). Zero only for a trial. */
    amount: z.number().int().min(0).max(100_000_000),
    interval: IntervalSchema.nullable(),
    interval_count: z.number().int().min(1).max(36).default(1),
    trial_days: z.number().int().min(1).max(365).nullable().default(null),
    discount_percent: z.number().int().min(1).max(99).nullable().default(null),
    title: z.object({ en: z.string().min(1).max(100), ru: z.string().min(1).max(100) }),
    active: z.boolean().default(true),
    /** For the gift product: the plan slug its code grants. */
    grants: z.string().nullable().default(null),
  })
  .refine((p) => p.amount > 0 || p.plan === "trial", { message: "only a trial may be free" })
  .refine((p) => p.plan !== "trial" || p.trial_days !== null, { message: "a trial needs trial_days" })
  .refine((p) => p.slug !== GIFT_PRODUCT_SLUG || p.grants !== null, {
    message: "the gift product needs grants",
  });
export type PlanEntry = z.infer<typeof PlanEntrySchema>;
export const PlanFileSchema = z.object({ products: z.array(PlanEntrySchema).min(1).max(200) });

const t = (en: string, ru: string) => ({ en, ru });

/**
 * The plans a fresh installation starts with (both currencies). The annual plans carry the spec's 30 %
 * and 50 % discount labels (against twelve monthly payments).
 */
export const DEFAULT_PLANS: PlanEntry[] = (
  [
    ["monthly-subscription", "monthly", "month", 1, 999, 49900, null, t("Monthly", "Ежемесячно")],
    ["quarterly-subscription", "quarterly", "month", 3, 2699, 134900, null, t("Quarterly", "Раз в квартал")],
    ["half-year-subscription", "half-year", "month", 6, 4999, 249900, null, t("Half a year", "Полгода")],
    ["yearly-subscription", "annual", "year", 1, 8399, 419900, 30, t("Annual", "Годовая")],
    ["yearly-subscription-best", "annual", "year", 2, 11999, 599900, 50, t("Two years", "Два года")],
    ["weekly-subscription", "weekly", "week", 1, 299, 14900, null, t("Weekly", "Еженедельно")],
    ["one-day", "one-day", "day", 1, 99, 4900, null, t("One day", "Один день")],
    ["lifetime", "one-time", null, 1, 19900, 990000, null, t("Lifetime", "Навсегда")],
    ["trial", "trial", null, 1, 0, 0, null, t("7-day trial", "Пробная неделя")],
    [GIFT_PRODUCT_SLUG, "one-time", null, 1, 999, 49900, null, t("Gift: one month", "Подарок: месяц")],
  ] as const
).flatMap(([slug, plan, interval, count, usd, rub, discount, title]) =>
  (["USD", "RUB"] as const).map((currency) =>
    PlanEntrySchema.parse({
      slug,
      plan,
      currency,
      amount: currency === "USD" ? usd : rub,
      interval,
      interval_count: count,
      trial_days: plan === "trial" ? 7 : null,
      discount_percent: discount,
      title,
      grants: slug === GIFT_PRODUCT_SLUG ? "monthly-subscription" : null,
    }),
  ),
);

/** Upserts the plan entries; with `deactivateOthers`, products missing from the list stop being sold. */
export async function importPlans(db: Db, entries: readonly PlanEntry[], deactivateOthers: boolean) {
  let position = 0;
  await db.transaction(async (tx) => {
    for (const p of entries) {
      const values = {
        slug: p.slug,
        plan: p.plan,
        currency: p.currency,
        amount: p.amount,
        interval: p.interval,
        intervalCount: p.interval_count,
        trialDays: p.trial_days,
        discountPercent: p.discount_percent,
        title: p.title,
        active: p.active,
        position: position++,
        grantsSlug: p.grants,
      };
      await tx
        .insert(billingProducts)
        .values(values)
        .onConflictDoUpdate({ target: [billingProducts.slug, billingProducts.currency], set: values });
    }
    if (deactivateOthers) {
      const keys = new Set(entries.map((p) => `${p.slug}/${p.currency}`));
      const all = await tx
        .select({ id: billingProducts.id, slug: billingProducts.slug, currency: billingProducts.currency })
        .from(billingProducts);
      for (const row of all) {
        if (!keys.has(`${row.slug}/${row.currency}`))
          await tx.update(billingProducts).set({ active: false }).where(eq(billingProducts.id, row.id));
      }
    }
  });
  return entries.length;
}

/** Seeds the default plans into an empty product table (first start). */
export async function seedDefaultPlans(db: Db): Promise<void> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(billingProducts);
  if ((row?.n ?? 0) === 0) await importPlans(db, DEFAULT_PLANS, false);
}
