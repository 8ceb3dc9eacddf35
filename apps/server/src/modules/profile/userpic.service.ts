import type { AppContext } from "../../lib/context.ts";
import { deleteFile, isStoredFileName, readFile, saveFile } from "../../lib/files.ts";
import { findUserById, replaceUserpicName } from "./profile.repo.ts";
import { USERPIC_AREA, USERPIC_URL_PREFIX } from "./profile.service.ts";
import { makeUserpicThumbnail } from "./userpic.image.ts";

/** Validates and re-encodes the upload, stores it under a random name, drops the old file; answers the URL. */
export async function replaceUserpic(ctx: AppContext, userId: string, upload: Buffer): Promise<string> {
  const thumbnail = await makeUserpicThumbnail(upload);
  const name = await saveFile(ctx.config.filesDir, USERPIC_AREA, "webp", thumbnail);
  let previous: string | null;
  try {
    previous = await replaceUserpicName(ctx.database.db, userId, name);
  } catch (error) {
    await deleteFile(ctx.config.filesDir, USERPIC_AREA, name);
    throw error;
  }
  if (previous && previous !== name) await deleteFile(ctx.config.filesDir, USERPIC_AREA, previous);
  return `${USERPIC_URL_PREFIX}${name}`;
}

/** The caller's own picture by name, or null (unknown, someone else's, or gone). */
export async function readUserpic(
  ctx: AppContext,
  userId: string,
  name: string,
): Promise<{ data: Buffer; contentType: string } | null> {
  if (!isStoredFileName(name)) return null;
  const user = await findUserById(ctx.database.db, userId);
  if (user?.userpicPath !== name) return null;
  const data = await readFile(ctx.config.filesDir, USERPIC_AREA, name);
  if (!data) return null;
  return { data, contentType: name.endsWith(".webp") ? "image/webp" : "image/jpeg" };
}
