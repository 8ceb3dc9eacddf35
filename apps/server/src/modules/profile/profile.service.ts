import {
  API,
  BillingStatusSchema,
  GenderSchema,
  LocaleSchema,
  type Profile,
  type ProfileUpdate,
  RoleSchema,
  UnitsSchema,
} from "@tonus/contract";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { hmacHex } from "../../lib/crypto.ts";
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
    // Identity verification for the support chat: the widget proves the user id with this HMAC.
    hmac: hmacHex(ctx.config.INTERCOM_SECRET ?? ctx.config.secretKey, user.id),
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
  await updateProfileColumns(ctx.database.db, userId, update);
  return getProfile(ctx, userId);
}
