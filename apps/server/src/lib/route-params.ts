import type { FastifyReply } from "fastify";
import { z } from "zod";
import { UUID_RE } from "./uuid.ts";

/**
 * Route helpers of the modules that serve a person's own objects by id (measurements, blood-pressure
 * readings): the id parameter, the uuid-or-404 guard and the no-store header.
 */

/** `:id` of one object. Any short string: a malformed id is answered like an unknown one (404, not 400). */
export const IdParamsSchema = z.object({ id: z.string().max(100) });

const NO_ID = "00000000-0000-0000-0000-000000000000";

/** The id itself when it is a uuid; otherwise an id nothing has, so the look-up ends in the same 404. */
export const idOrNone = (id: string): string => (UUID_RE.test(id) ? id : NO_ID);

/** Personal answers must not be kept by the browser or a proxy (ASVS 14.3.2). */
export function noStore(reply: FastifyReply): void {
  reply.header("cache-control", "no-store");
}
