import {
  API,
  BillingStatusSchema,
  EnergyUnitSchema,
  GenderSchema,
  LocaleSchema,
  type Profile,
  type ProfileUpdate,
  RoleSchema,
  UnitsSchema,
} from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { hmacHex } from "../../lib/crypto.ts";
import { refreshSummaryZone } from "../dashboard-values/dashboard-values.service.ts";
import { getEntitlements } from "../entitlements/entitlements.service.ts";
import { findUserById, updateProfileColumns } from "./profile.repo.ts";

export const USERPIC_AREA = "userpics";
export const USERPIC_URL_PREFIX = API.userpicMedia.replace(":name", "");

export function userpicUrl(name: string | null): string | null {
  return name ? `${USERPIC_URL_PREFIX}${name}` : null;
}

/** The signed-in user's profile, including the three entitlement fields and the chat-widget HMAC. */
export async function getProfile(ctx: AppContext, userId: string): Promise<Profile> {
  const user = await findUserById(ctx.database.db, userId);
  if (!user) throw new AppError("not_authenticated", "Authentication required");
  const entitlements = await getEntitlements(ctx, userId);
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    // Identity verification for the support chat (Intercom's user_hash): HMAC-SHA256 of the user id with
    // the operator's INTERCOM_SECRET. Without that secret there is nothing the chat could verify: empty.
    hmac: ctx.config.INTERCOM_SECRET ? hmacHex(ctx.config.INTERCOM_SECRET, user.id) : "",
    userpic: userpicUrl(user.userpicPath),
    is_ios_user: user.isIosUser,
    is_android_user: user.isAndroidUser,
    billing_status: BillingStatusSchema.catch("none").parse(user.billingStatus),
    name: user.name,
    gender: GenderSchema.nullable().catch(null).parse(user.gender),
    date_of_birth: user.dateOfBirth,
    height: user.heightCm,
    weight: user.weightKg,
    units: UnitsSchema.catch("metric").parse(user.units),
    energy_unit: EnergyUnitSchema.catch("kcal").parse(user.energyUnit),
    newsletter_language: LocaleSchema.catch("en").parse(user.newsletterLanguage),
    timezone: user.timezone,
    role: RoleSchema.catch("user").parse(user.role),
    ...entitlements,
  };
}

/** Applies an already validated update (allowlisted keys only) and answers the new profile. */
export async function updateProfile(
  ctx: AppContext,
  userId: string,
  update: ProfileUpdate,
): Promise<Profile> {
  await ctx.database.db.transaction(async (tx) => {
    await updateProfileColumns(tx as unknown as Db, userId, update);
    // The dashboard counts values into the person's local days: a new zone re-counts them.
    if (update.timezone !== undefined) await refreshSummaryZone(tx as unknown as Db, userId);
  });
  return getProfile(ctx, userId);
}
