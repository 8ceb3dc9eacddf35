import { z } from "zod";
import { storableText } from "./common.ts";

/**
 * IFTTT's service protocol (https://ifttt.com/docs/api_reference): the bodies IFTTT posts to
 * `/ifttt/v1/…`. IFTTT adds fields over time, so every object accepts unknown keys (the protocol asks
 * services to ignore them).
 */

/** Trigger items answered when a poll sends no `limit` (IFTTT's default). */
export const IFTTT_DEFAULT_LIMIT = 50;
/** The most items one poll answers, whatever `limit` asks (IFTTT asks for far fewer in practice). */
export const IFTTT_MAX_LIMIT = 1000;
/** The most notices one call to IFTTT's realtime API carries (its documented maximum). */
export const IFTTT_REALTIME_BATCH = 1000;

/** Who the applet runs for; IFTTT sends the person's IANA time zone. */
export const IftttUserSchema = z.looseObject({ timezone: z.string().max(64).nullish() });

/** `POST /ifttt/v1/triggers/{trigger}`. */
export const IftttTriggerRequestSchema = z.looseObject({
  /** IFTTT's id of one applet's trigger (40 hex characters in practice); text a database can store. */
  trigger_identity: storableText(200).nullish(),
  /** The applet's trigger fields; required (and checked per field) when the trigger has fields. */
  triggerFields: z.record(z.string(), z.unknown()).nullish(),
  /** Items wanted, newest first: absent means IFTTT_DEFAULT_LIMIT, 0 an empty list. */
  limit: z.number().int().min(0).nullish(),
  user: IftttUserSchema.nullish(),
  ifttt_source: z.looseObject({}).nullish(),
});
export type IftttTriggerRequest = z.infer<typeof IftttTriggerRequestSchema>;

/** `POST /ifttt/v1/actions/{action}`. */
export const IftttActionRequestSchema = z.looseObject({
  actionFields: z.record(z.string(), z.unknown()),
  user: IftttUserSchema.nullish(),
  ifttt_source: z.looseObject({}).nullish(),
});
export type IftttActionRequest = z.infer<typeof IftttActionRequestSchema>;

/** `POST /ifttt/v1/triggers/{trigger}/fields/{field}/validate`. */
export const IftttFieldValidateRequestSchema = z.looseObject({ value: z.unknown() });

/** `POST /ifttt/v1/triggers/{trigger}/fields/{field}/options` (IFTTT sends the user and source only). */
export const IftttFieldOptionsRequestSchema = z.looseObject({ user: IftttUserSchema.nullish() });
