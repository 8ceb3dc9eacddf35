import { randomUUID } from "node:crypto";
import { BpReadingCreateSchema } from "@tonus/contract";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { users } from "../../db/schema.ts";
import type { AppContext } from "../../lib/context.ts";
import { createReading } from "../bp/bp.service.ts";
import { recordValues } from "../dashboard-values/dashboard-values.service.ts";
import { IftttError } from "./ifttt.errors.ts";

type Body = Record<string, unknown>;

/** Actions: each writes through the owning domain's write path and answers the new record's id. */
export type ActionDef = {
  sample: Record<string, string>;
  skipSample: Record<string, string>;
  /** `timeZone`: the one IFTTT sent for the person, or their profile's. */
  run: (ctx: AppContext, q: { userId: string; fields: Body; timeZone: string }) => Promise<string>;
};

/** A number IFTTT sends as a string (or a number), or NaN. */
const numberField = (v: unknown) =>
  typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;

/** The person's time zone from the profile, for when IFTTT sends none (or one this runtime does not know). */
export async function profileTimeZone(db: Db, userId: string): Promise<string> {
  const [row] = await db.select({ tz: users.timezone }).from(users).where(eq(users.id, userId));
  return row?.tz ?? "UTC";
}

export const ACTIONS: Record<string, ActionDef> = {
  // Through modules/bp: validated there like any reading (ESC/ESH category, bp.reading_added event).
  log_blood_pressure: {
    sample: { systolic: "128", diastolic: "82", pulse: "70" },
    skipSample: { systolic: "80", diastolic: "120", pulse: "" },
    run: async (ctx, { userId, fields, timeZone }) => {
      const systolic = numberField(fields.systolic);
      const diastolic = numberField(fields.diastolic);
      const pulseRaw = fields.pulse;
      const pulse =
        pulseRaw === undefined || pulseRaw === null || pulseRaw === "" ? undefined : numberField(pulseRaw);
      const parsed = BpReadingCreateSchema.safeParse({
        systolic,
        diastolic,
        ...(pulse !== undefined ? { pulse } : {}),
        measured_at: new Date().toISOString(),
        time_zone: timeZone,
      });
      if (!parsed.success)
        throw new IftttError(400, parsed.error.issues[0]?.message ?? "The reading is not valid", true);
      const { reading } = await createReading(ctx, userId, parsed.data);
      return reading.id;
    },
  },
  // The profile's weight (kg, as users.weight_kg stores it) and a dated dashboard value.
  log_weight: {
    sample: { weight_kg: "70.5" },
    skipSample: { weight_kg: "-3" },
    run: async (ctx, { userId, fields }) => {
      const kg = numberField(fields.weight_kg);
      if (!Number.isFinite(kg) || kg < 20 || kg > 400)
        throw new IftttError(400, "Weight must be a number of kilograms from 20 to 400", true);
      const id = randomUUID();
      const weightKg = Math.round(kg * 100) / 100;
      await ctx.database.db.transaction(async (tx) => {
        await tx.update(users).set({ weightKg }).where(eq(users.id, userId));
        await recordValues(tx as unknown as Db, userId, [
          { metric: "weight", at: new Date(), value: weightKg, source: "ifttt", clientId: id },
        ]);
      });
      return id;
    },
  },
  // Water through the dashboard's write path, stored in litres.
  log_water: {
    sample: { amount_ml: "250" },
    skipSample: { amount_ml: "0" },
    run: async (ctx, { userId, fields }) => {
      const ml = numberField(fields.amount_ml);
      if (!Number.isFinite(ml) || ml <= 0 || ml > 10_000)
        throw new IftttError(400, "Amount must be from 1 to 10000 millilitres", true);
      const id = randomUUID();
      await ctx.database.db.transaction((tx) =>
        recordValues(tx as unknown as Db, userId, [
          { metric: "water", at: new Date(), value: ml / 1000, source: "ifttt", clientId: id },
        ]),
      );
      return id;
    },
  },
};
