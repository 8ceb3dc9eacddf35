import fs from "node:fs";
import path from "node:path";
import { desc } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { openDatabase } from "../../db/client.ts";
import { acquireDataDirLock, DataDirLockedError, removeStalePostmasterPid } from "../../db/lock.ts";
import { billingCoupons, billingProducts } from "../../db/schema.ts";
import { type Config, loadConfig } from "../../lib/config.ts";
import { REFERRAL_COMMANDS, REFERRAL_USAGE, referralCommand } from "../referral/referral.cli.ts";
import { DEFAULT_PLANS, importPlans, PlanFileSchema } from "./plans.ts";

/**
 * The operator's billing commands (`npm run cli -- plans-import FILE`, …): plans from a JSON file and
 * promo codes and the referral reward, without touching code. Documented in docs/billing.md.
 */
export const BILLING_USAGE = `plans-import FILE       make the plans those of FILE (JSON, see docs/billing-plans.example.json);
                          products left out stop being sold, their subscribers keep them
  plans-export            print the current plans as such a file
  plans-list              every product with its price and state
  coupon-add CODE PERCENT [--product SLUG] [--max N] [--expires YYYY-MM-DD]
                          a promo code for PERCENT % off (any plan, or one plan slug)
  coupon-disable CODE     stop a promo or gift code
  coupon-list             every code with its use count
  ${REFERRAL_USAGE}`;

const COMMANDS = new Set([
  "plans-import",
  "plans-export",
  "plans-list",
  "coupon-add",
  "coupon-disable",
  "coupon-list",
]);

export function isBillingCommand(command: string | undefined): boolean {
  return command !== undefined && (COMMANDS.has(command) || REFERRAL_COMMANDS.has(command));
}

type Result = { code: 0 | 1 | 2; out: string };

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function billingCommand(
  db: Db,
  argv: string[],
  config: Pick<Config, "REFERRAL_REWARD_DAYS" | "REFERRAL_REWARD_MAX"> = {
    REFERRAL_REWARD_DAYS: 30,
    REFERRAL_REWARD_MAX: 12,
  },
): Promise<Result> {
  const [command, ...args] = argv;
  if (command !== undefined && REFERRAL_COMMANDS.has(command)) return referralCommand(db, argv, config);
  switch (command) {
    case "plans-import": {
      const file = args[0];
      if (!file || args.length !== 1) return { code: 2, out: "plans-import needs exactly one FILE" };
      let parsed: unknown;
      try {
        parsed = JSON.parse(fs.readFileSync(file, "utf8"));
      } catch (error) {
        return { code: 1, out: `cannot read ${file}: ${(error as Error).message}` };
      }
      const plans = PlanFileSchema.safeParse(parsed);
      if (!plans.success) {
        const issue = plans.error.issues[0];
        return { code: 1, out: `${file}: ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}` };
      }
      const n = await importPlans(db, plans.data.products, true);
      return { code: 0, out: `${n} products imported` };
    }
    case "plans-export": {
      const rows = await db
        .select()
        .from(billingProducts)
        .orderBy(billingProducts.position, billingProducts.id);
      const products = rows.map((p) => ({
        slug: p.slug,
        plan: p.plan,
        currency: p.currency,
        amount: p.amount,
        interval: p.interval,
        interval_count: p.intervalCount,
        trial_days: p.trialDays,
        discount_percent: p.discountPercent,
        title: p.title,
        active: p.active,
        grants: p.grantsSlug,
      }));
      return {
        code: 0,
        out: JSON.stringify({ products: products.length ? products : DEFAULT_PLANS }, null, 2),
      };
    }
    case "plans-list": {
      const rows = await db
        .select()
        .from(billingProducts)
        .orderBy(billingProducts.position, billingProducts.id);
      const lines = rows.map(
        (p) =>
          `${String(p.id).padStart(3)}  ${p.slug.padEnd(26)} ${p.plan.padEnd(10)} ${(p.amount / 100).toFixed(2).padStart(9)} ${p.currency}  ${p.active ? "on sale" : "retired"}`,
      );
      return { code: 0, out: lines.join("\n") || "no products" };
    }
    case "coupon-add": {
      const [rawCode, rawPercent] = args;
      const code = rawCode?.toUpperCase() ?? "";
      const percent = Number(rawPercent);
      const max = flag(args, "--max");
      const expires = flag(args, "--expires");
      if (!/^[A-Z0-9-]{3,64}$/.test(code) || !Number.isInteger(percent) || percent < 1 || percent > 100)
        return { code: 2, out: "coupon-add CODE PERCENT: CODE is 3-64 letters, digits or -, PERCENT 1-100" };
      if (max !== undefined && !/^\d+$/.test(max)) return { code: 2, out: "--max takes a whole number" };
      if (expires !== undefined && Number.isNaN(Date.parse(`${expires}T00:00:00Z`)))
        return { code: 2, out: "--expires takes a date YYYY-MM-DD" };
      const inserted = await db
        .insert(billingCoupons)
        .values({
          code,
          percentOff: percent,
          productSlug: flag(args, "--product") ?? null,
          maxRedemptions: max === undefined ? null : Number(max),
          expiresAt: expires === undefined ? null : new Date(`${expires}T00:00:00Z`),
        })
        .onConflictDoNothing()
        .returning();
      return inserted.length
        ? { code: 0, out: `${code}: ${percent} % off` }
        : { code: 1, out: `${code} exists already` };
    }
    case "coupon-disable": {
      const code = args[0]?.toUpperCase();
      if (!code) return { code: 2, out: "coupon-disable needs a CODE" };
      const { eq } = await import("drizzle-orm");
      const rows = await db
        .update(billingCoupons)
        .set({ active: false })
        .where(eq(billingCoupons.code, code))
        .returning();
      return rows.length ? { code: 0, out: `${code} disabled` } : { code: 1, out: `no code ${code}` };
    }
    case "coupon-list": {
      const rows = await db.select().from(billingCoupons).orderBy(desc(billingCoupons.createdAt));
      const lines = rows.map(
        (c) =>
          `${c.code.padEnd(20)} ${c.kind.padEnd(5)} ${String(c.percentOff).padStart(3)} %  ${c.productSlug ?? "any plan"}  used ${c.redeemed}${c.maxRedemptions === null ? "" : `/${c.maxRedemptions}`}${c.active ? "" : "  disabled"}`,
      );
      return { code: 0, out: lines.join("\n") || "no codes" };
    }
    default:
      return { code: 2, out: `unknown command ${command}` };
  }
}

/** Runs one billing command against the configured database (taking the data-directory lock on PGlite). */
export async function runBillingCli(argv: string[]): Promise<number> {
  const config = loadConfig(process.env);
  let release = () => {};
  if (!config.DATABASE_URL) {
    try {
      release = acquireDataDirLock(config.DATA_DIR, () => {});
    } catch (error) {
      if (error instanceof DataDirLockedError) {
        process.stderr.write(
          `tonus: ${error.message}\ntonus: stop the server, run the command, start the server again.\n`,
        );
        return 1;
      }
      throw error;
    }
    removeStalePostmasterPid(path.join(config.DATA_DIR, "pgdata"));
  }
  const database = await openDatabase({
    url: config.DATABASE_URL,
    pgliteDir: path.join(config.DATA_DIR, "pgdata"),
  });
  try {
    const result = await billingCommand(database.db, argv, config);
    (result.code === 0 ? process.stdout : process.stderr).write(
      `${result.code === 0 ? "" : "tonus: "}${result.out}\n`,
    );
    return result.code;
  } finally {
    await database.close();
    release();
  }
}
