import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../../db/client.ts";
import { billingProducts } from "../../db/schema.ts";
import { BACKENDS, getTestDatabase, resetDatabase } from "../../test/databases.ts";
import { billingCommand } from "./billing.cli.ts";
import { DEFAULT_PLANS, seedDefaultPlans } from "./plans.ts";

const CLI = path.join(import.meta.dirname, "../../cli.ts");

describe.each(BACKENDS)("billing operator commands on %s", (backend) => {
  let database: Database;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-plans-"));
  beforeAll(async () => {
    database = await getTestDatabase(backend);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => {
    await resetDatabase(database);
    await seedDefaultPlans(database.db);
  });

  it("imports a plan file: prices change, a plan left out is retired, a bad file changes nothing", async () => {
    const file = path.join(dir, "plans.json");
    const kept = DEFAULT_PLANS.filter((p) => p.slug !== "weekly-subscription").map((p) =>
      p.slug === "monthly-subscription" && p.currency === "USD" ? { ...p, amount: 1299 } : p,
    );
    fs.writeFileSync(file, JSON.stringify({ products: kept }));
    expect(await billingCommand(database.db, ["plans-import", file])).toEqual({
      code: 0,
      out: `${kept.length} products imported`,
    });
    const rows = await database.db.select().from(billingProducts);
    expect(rows.find((p) => p.slug === "monthly-subscription" && p.currency === "USD")?.amount).toBe(1299);
    expect(rows.filter((p) => p.slug === "weekly-subscription").every((p) => !p.active)).toBe(true);

    fs.writeFileSync(file, JSON.stringify({ products: [{ ...kept[0], amount: 0 }] }));
    const bad = await billingCommand(database.db, ["plans-import", file]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("only a trial may be free");
    expect(await database.db.select().from(billingProducts)).toHaveLength(rows.length);
  });

  it("adds, lists and disables promo codes", async () => {
    expect(
      await billingCommand(database.db, [
        "coupon-add",
        "spring",
        "20",
        "--product",
        "monthly-subscription",
        "--max",
        "3",
      ]),
    ).toEqual({
      code: 0,
      out: "SPRING: 20 % off",
    });
    expect((await billingCommand(database.db, ["coupon-add", "SPRING", "20"])).code).toBe(1);
    expect((await billingCommand(database.db, ["coupon-add", "X", "200"])).code).toBe(2);
    expect((await billingCommand(database.db, ["coupon-list"])).out).toMatch(
      /SPRING\s+promo\s+20 %\s+monthly-subscription\s+used 0\/3/,
    );
    expect(await billingCommand(database.db, ["coupon-disable", "spring"])).toEqual({
      code: 0,
      out: "SPRING disabled",
    });
  });
});

describe("billing commands through the operator CLI", () => {
  // A fresh embedded database is created and migrated by the child process: slow on a busy machine.
  it("lists the seeded plans on an embedded database", { timeout: 240_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-cli-billing-"));
    try {
      const child = spawn(process.execPath, [CLI, "plans-list"], {
        env: { PATH: process.env.PATH ?? "", DATA_DIR: dataDir, LOG_LEVEL: "silent" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      const code = await new Promise((resolve) => child.on("exit", resolve));
      expect(code).toBe(0);
      expect(stdout).toBe("no products\n");
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
