import { z } from "zod";
import { EmailSchema, isStorable, LocaleSchema, NOT_STORABLE, TimeZoneSchema } from "./common.ts";

/** Passwords: at least 8 characters, at most 256 (never truncated), checked as typed (NFC). */
export const PasswordSchema = z.string().min(8).max(256);

export const RegisterRequestSchema = z.strictObject({
  email: EmailSchema,
  password: PasswordSchema,
  name: z.string().trim().max(100).refine(isStorable, NOT_STORABLE).optional(),
  timezone: TimeZoneSchema.optional(),
  language: LocaleSchema.optional(),
  /** The code of the referral link the person came through; an unknown code is ignored. */
  referral_code: z.string().trim().max(64).optional(),
});
export type RegisterRequest = z.infer<typeof RegisterRequestSchema>;

export const SigninRequestSchema = z.strictObject({
  email: EmailSchema,
  password: z.string().min(1).max(256),
});
export type SigninRequest = z.infer<typeof SigninRequestSchema>;

/** The spec's user types: a full session, a share-token viewer, or nobody. */
export const UserTypeSchema = z.enum(["anonymous", "full", "share"]);
export type UserType = z.infer<typeof UserTypeSchema>;

export const SessionStateSchema = z.object({
  authenticated: z.boolean(),
  user_type: UserTypeSchema,
});
export type SessionState = z.infer<typeof SessionStateSchema>;

export const PasswordRecoveryRequestSchema = z.strictObject({ email: EmailSchema });
export const PasswordResetRequestSchema = z.strictObject({
  token: z.string().min(16).max(128),
  password: PasswordSchema,
});
export const PasswordChangeRequestSchema = z.strictObject({
  current_password: z.string().min(1).max(256),
  new_password: PasswordSchema,
  /** Accepted for compatibility; other sessions always end at a password change (Django's behaviour). */
  sign_out_other_sessions: z.boolean().optional(),
});

/**
 * Direct login: the companion app mints a one-time pair (valid 60 s) with its API token and opens
 * `/user/login-direct?token=…&session_id=…`; the page exchanges the pair for a fresh web session.
 */
export const DirectLoginCodeSchema = z.object({
  token: z.string(),
  session_id: z.string(),
  expires_in_s: z.number().int(),
});
export type DirectLoginCode = z.infer<typeof DirectLoginCodeSchema>;

export const DirectLoginExchangeRequestSchema = z.strictObject({
  token: z.string().min(16).max(128),
  session_id: z.string().min(16).max(128),
  /** Set after the person confirmed switching away from another signed-in account. */
  confirm_switch: z.boolean().optional(),
});

export const DirectLoginExchangeResponseSchema = z.object({
  ok: z.literal(true),
  /** True when another account is signed in and the person must confirm the switch first. */
  needs_confirmation: z.boolean(),
  current_email: z.string().optional(),
});

export const ApiTokenCreateRequestSchema = z.strictObject({
  name: z.string().trim().min(1).max(100).refine(isStorable, NOT_STORABLE),
});
export const ApiTokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  created: z.string(),
  last_used: z.string().nullable(),
});
export const ApiTokenCreatedSchema = ApiTokenSchema.extend({ key: z.string() });
export const ApiTokenListSchema = z.object({ results: z.array(ApiTokenSchema) });

export const SocialProviderSchema = z.object({ id: z.string(), name: z.string() });
export const SocialProvidersSchema = z.object({ results: z.array(SocialProviderSchema) });
