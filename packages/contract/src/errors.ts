import { z } from "zod";

/**
 * Every stable error code the API answers with. The wire shape is the spec's: `error` holds the message
 * (the web app falls back to `detail`), `code` is one of these, `issues` lists field problems on 400.
 */
export const ERROR_CODES = {
  /** The body, query or params did not match the endpoint's schema. */
  validation_failed: 400,
  /** An unsafe request without a valid, session-bound CSRF token or from a foreign origin. */
  csrf_failed: 403,
  /** The request needs a signed-in user (or a token) and has none. */
  not_authenticated: 403,
  /** Signed in, but this user may not do this (for example a non-operator on an operator route). */
  forbidden: 403,
  /** Nothing with that id is visible to this caller; the same for "exists but is not yours". */
  not_found: 404,
  /** Sign-in with an unknown e-mail or a wrong password (one message for both, spec §8). */
  invalid_credentials: 400,
  /** Password recovery for an address with no account (spec §8 "No user with this email"). */
  user_not_found: 400,
  /** Registration with an e-mail that already has an account. */
  email_taken: 409,
  /** A password shorter than the minimum or on the common-password list. */
  weak_password: 400,
  /** The current password given for a password change is wrong. */
  wrong_password: 400,
  /** A password-reset or direct-login code that is unknown, used or expired. */
  invalid_code: 400,
  /** Too many attempts; retry after the time in `Retry-After`. */
  rate_limited: 429,
  /** The uploaded file is larger than allowed. */
  file_too_large: 413,
  /** The upload is not exactly one file of an accepted image type, or is corrupt. */
  invalid_image: 400,
  /** The image is larger in pixels (or frames) than allowed. */
  image_too_large: 400,
  /** The request body is larger than the server accepts. */
  payload_too_large: 413,
  /** The operation conflicts with the current state. */
  conflict: 409,
  /** `MAINTENANCE=1`: every API call is refused until the operator turns it off. */
  maintenance: 503,
  /** The payment provider refused the card or the payment (spec §8 "Payment error … (402)"). */
  payment_failed: 402,
  /** A second purchase while a subscription is active (spec §8). */
  already_subscribed: 409,
  /** Account deletion while a paid subscription is active (spec §8). */
  subscription_active: 409,
  /** An archive import into an account that already holds data (imports go into empty accounts only). */
  account_not_empty: 409,
  /** An uploaded file Tonus cannot import (unknown format, a hostile or broken zip); `reason` says why. */
  import_rejected: 400,
  /** An upload for a catalogue entry that has no file to import (Health Connect, a cloud-only service). */
  source_not_importable: 400,
  /** The person already has the most unfinished imports allowed at once (RELIABILITY U9). */
  too_many_imports: 429,
  /** The upload would take the person's stored import files past the installation's quota. */
  storage_quota_exceeded: 413,
  /** The import is not in a state that allows this (a mapping for an import that is not waiting for one). */
  import_state: 409,
  /** An Idempotency-Key reused with different parameters (Stripe's semantics). */
  idempotency_mismatch: 422,
  /** More parameters in the dashboard's table than allowed (spec §5 "you can't add more than 8 …"). */
  table_limit: 400,
  /** A PRO feature (editing the dashboard, manual entries) asked for by someone who is not a customer. */
  pro_required: 402,
  /** A cloud connector the operator has not configured (no client id and secret on this installation). */
  connector_not_configured: 409,
  /** The vendor turned this provider's API off (the legacy Fitbit Web API): nothing to connect or sync. */
  connector_retired: 409,
  /** The connection's token was refused by the provider: connect again before syncing. */
  connector_reconnect_needed: 409,
  /** A request whose Idempotency-Key is still being processed by an earlier request; retry later. */
  idempotency_in_progress: 409,
  /** The server is shutting down or overloaded; retry. */
  unavailable: 503,
  /** An unexpected failure; details are in the server log under the request id. */
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);

/** The one error body every endpoint answers with. */
export const ApiErrorBodySchema = z.object({
  error: z.string(),
  detail: z.string().optional(),
  code: ErrorCodeSchema,
  issues: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  /**
   * A finer, stable reason inside some codes: `conflict` with `client_id_taken` is a client id already
   * naming another measurement (retrying cannot help); a `conflict` without it may be retried.
   */
  reason: z.string().optional(),
  requestId: z.string().optional(),
});
export type ApiErrorBody = z.infer<typeof ApiErrorBodySchema>;
