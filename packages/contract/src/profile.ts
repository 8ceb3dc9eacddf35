import { z } from "zod";
import { IsoDateSchema, isStorable, LocaleSchema, NOT_STORABLE, TimeZoneSchema } from "./common.ts";
import { ENERGY_UNITS } from "./dashboard-metrics.ts";
import { SCHEMA_MESSAGES } from "./messages.ts";

export const UnitsSchema = z.enum(["metric", "imperial"]);
export type Units = z.infer<typeof UnitsSchema>;
/** Spec §3 Units "kcal variants": energy in kilocalories or kilojoules, whatever the unit system. */
export const EnergyUnitSchema = z.enum(ENERGY_UNITS);
export const GenderSchema = z.enum(["male", "female"]);
export const BillingStatusSchema = z.enum(["none", "active", "failed", "cancelled"]);
export const RoleSchema = z.enum(["user", "operator"]);

/** What `getEntitlements` answers; the profile carries the same three fields. */
export const EntitlementsSchema = z.object({
  is_customer: z.boolean(),
  plan: z.string().nullable(),
  upgradable: z.boolean(),
});
export type Entitlements = z.infer<typeof EntitlementsSchema>;

/**
 * The profile (spec §3). Height is in centimetres and weight in kilograms whatever `units` says: the
 * web app converts for display, so stored values never drift through rounding.
 */
export const ProfileSchema = EntitlementsSchema.extend({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  hmac: z.string(),
  userpic: z.string().nullable(),
  is_ios_user: z.boolean(),
  is_android_user: z.boolean(),
  billing_status: BillingStatusSchema,
  name: z.string(),
  gender: GenderSchema.nullable(),
  date_of_birth: IsoDateSchema.nullable(),
  height: z.number().nullable(),
  weight: z.number().nullable(),
  units: UnitsSchema,
  energy_unit: EnergyUnitSchema,
  newsletter_language: LocaleSchema,
  timezone: z.string(),
  role: RoleSchema,
});
export type Profile = z.infer<typeof ProfileSchema>;

/** The fields a person may change; any other key is refused (mass assignment, ASVS 15.3.3). */
export const ProfileUpdateSchema = z.strictObject({
  name: z.string().trim().max(100).refine(isStorable, NOT_STORABLE).optional(),
  gender: GenderSchema.nullable().optional(),
  date_of_birth: IsoDateSchema.refine(
    (d) => d >= "1900-01-01" && d <= new Date().toISOString().slice(0, 10),
    {
      message: SCHEMA_MESSAGES.date_of_birth,
    },
  )
    .nullable()
    .optional(),
  height: z.number().min(50).max(260).nullable().optional(),
  weight: z.number().min(20).max(400).nullable().optional(),
  units: UnitsSchema.optional(),
  energy_unit: EnergyUnitSchema.optional(),
  newsletter_language: LocaleSchema.optional(),
  timezone: TimeZoneSchema.optional(),
});
export type ProfileUpdate = z.infer<typeof ProfileUpdateSchema>;

export const UserpicUploadResponseSchema = z.object({ url: z.string() });

/** `GET /dashboard_api/v1/config/env/`: public, so it holds only an allowlist of non-secret values. */
export const ConfigEnvSchema = z.object({
  intercom_key: z.string().nullable(),
  analytics_send_to_tonus: z.boolean(),
  tonus_analytics_token: z.string().nullable(),
  chat_widget_url: z.string().nullable(),
  help_center_url: z.string(),
  billing_mode: z.enum(["off", "sandbox", "stripe"]),
  /** Stripe's publishable key for Stripe.js, only with `billing_mode` stripe (null otherwise). */
  stripe_publishable_key: z.string().nullable(),
  maintenance: z.boolean(),
});
export type ConfigEnv = z.infer<typeof ConfigEnvSchema>;
