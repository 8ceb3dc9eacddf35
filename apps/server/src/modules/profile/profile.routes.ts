import { API, ProfileSchema, ProfileUpdateSchema, UserpicUploadResponseSchema } from "@tonus/contract";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { AppError } from "../../lib/app-error.ts";
import { requireUserId } from "../../lib/auth.ts";
import type { AppContext } from "../../lib/context.ts";
import { profileDataSection } from "./profile.data.ts";
import { getProfile, updateProfile } from "./profile.service.ts";
import { readUserpic, replaceUserpic } from "./userpic.service.ts";

const MediaParamsSchema = z.object({ name: z.string().max(100) });

/** The one uploaded file's bytes: exactly one file part; busboy stops reading past the 5 MB limit. */
async function readSingleUpload(request: FastifyRequest): Promise<Buffer> {
  if (!request.isMultipart()) throw new AppError("invalid_image", "Upload exactly one image file");
  let file: Buffer | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type !== "file") continue;
      if (file) throw new AppError("invalid_image", "Upload exactly one image file");
      file = await part.toBuffer();
    }
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "FST_REQ_FILE_TOO_LARGE")
      throw new AppError("file_too_large", "The file must be at most 5 MB");
    if (code === "FST_FILES_LIMIT") throw new AppError("invalid_image", "Upload exactly one image file");
    if (error instanceof AppError || typeof (error as { statusCode?: unknown }).statusCode === "number")
      throw error;
    // Only multipart parsing runs in this loop: an error without a status is busboy refusing the framing.
    throw new AppError("validation_failed", "Malformed multipart body");
  }
  if (!file) throw new AppError("invalid_image", "Upload exactly one image file");
  return file;
}

export function registerProfileRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.services.registry.register(profileDataSection);
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    API.profile,
    { config: { access: "user" }, schema: { response: { 200: ProfileSchema } } },
    async (request) => getProfile(ctx, requireUserId(request)),
  );

  r.put(
    API.profile,
    { config: { access: "user" }, schema: { body: ProfileUpdateSchema, response: { 200: ProfileSchema } } },
    async (request) => updateProfile(ctx, requireUserId(request), request.body),
  );

  r.post(
    API.userpicUpload,
    { config: { access: "user" }, schema: { response: { 200: UserpicUploadResponseSchema } } },
    async (request) => {
      const userId = requireUserId(request);
      const data = await readSingleUpload(request);
      return { url: await replaceUserpic(ctx, userId, data) };
    },
  );

  // Only the owner may fetch their picture: another user's name answers 404 like a missing file (A1).
  r.get(
    API.userpicMedia,
    { config: { access: "user" }, schema: { params: MediaParamsSchema } },
    async (request, reply) => {
      const picture = await readUserpic(ctx, requireUserId(request), request.params.name);
      if (!picture) throw new AppError("not_found", "Not found");
      return reply
        .type(picture.contentType)
        .header("x-content-type-options", "nosniff")
        .header("cache-control", "private, max-age=86400")
        .send(picture.data);
    },
  );
}
