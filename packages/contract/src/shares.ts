import { z } from "zod";

/**
 * What a share link can point at. Each kind's owning module registers how to check that the target is
 * the owner's and adds the share-viewer routes that accept the link (`Authorization: Token tsh_…`).
 */
export const ShareKindSchema = z.enum(["bp_log", "measurement"]);
export type ShareKind = z.infer<typeof ShareKindSchema>;

export const ShareLinkCreateRequestSchema = z.strictObject({
  kind: ShareKindSchema,
  target_id: z.string().trim().min(1).max(100),
});
export type ShareLinkCreateRequest = z.infer<typeof ShareLinkCreateRequestSchema>;

export const ShareLinkSchema = z.object({
  id: z.string(),
  kind: ShareKindSchema,
  target_id: z.string(),
  created: z.string(),
  /** When the owner revoked it; a revoked link answers 404 like an unknown one. */
  revoked: z.string().nullable(),
  last_opened: z.string().nullable(),
});
export type ShareLink = z.infer<typeof ShareLinkSchema>;

/**
 * The answer to a create: the only time the token is shown (only its SHA-256 is stored). The web app
 * puts it in the share URL's fragment so it never reaches server logs, and the viewer sends it as
 * `Authorization: Token tsh_…` to the share-viewer endpoints only; any other endpoint refuses it (403).
 */
export const ShareLinkCreatedSchema = ShareLinkSchema.extend({ token: z.string() });
export type ShareLinkCreated = z.infer<typeof ShareLinkCreatedSchema>;

export const ShareLinkListSchema = z.object({ results: z.array(ShareLinkSchema) });
