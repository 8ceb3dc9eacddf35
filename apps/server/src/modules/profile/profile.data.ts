import { eq } from "drizzle-orm";
import sharp from "sharp";
import { users } from "../../db/schema.ts";
import { AppError } from "../../lib/app-error.ts";
import { deleteFile, readFile, saveFile } from "../../lib/files.ts";
import type { UserDataSection } from "../../lib/registry.ts";
import { USERPIC_AREA } from "./profile.service.ts";
import { makeUserpicThumbnail } from "./userpic.image.ts";

async function userpicName(
  tx: Parameters<NonNullable<UserDataSection["deleteExtra"]>>[0]["tx"],
  userId: string,
) {
  const [row] = await tx.select({ name: users.userpicPath }).from(users).where(eq(users.id, userId));
  return row?.name ?? null;
}

/**
 * The profile picture file (its row fields travel with the account section). On import the picture is
 * decoded and re-encoded like an upload and stored under a fresh name, so an archive cannot plant a file
 * or overwrite another user's picture; on deletion the file goes once the rows are gone.
 */
export const profileDataSection: UserDataSection = {
  name: "profile",
  tables: {},
  exportExtra: async (ctx, data) => {
    const name = await userpicName(ctx.tx, ctx.userId);
    const bytes = name ? await readFile(ctx.filesDir, USERPIC_AREA, name) : null;
    if (name && bytes) data.files = [{ area: USERPIC_AREA, name, data: bytes.toString("base64") }];
  },
  importExtra: async (ctx, data) => {
    const file = data.files?.find((f) => f.area === USERPIC_AREA);
    if (!file) return;
    // Stored pictures are WebP, which uploads do not accept: decode under a pixel limit, then treat the
    // result like an upload.
    let png: Buffer;
    try {
      png = await sharp(Buffer.from(file.data, "base64"), { limitInputPixels: 4096 * 4096 })
        .png()
        .toBuffer();
    } catch {
      throw new AppError("invalid_image", "The archive's profile picture is not a readable image");
    }
    const thumbnail = await makeUserpicThumbnail(png);
    const previous = await userpicName(ctx.tx, ctx.userId);
    const name = await saveFile(ctx.filesDir, USERPIC_AREA, "webp", thumbnail);
    ctx.onRollback(() => deleteFile(ctx.filesDir, USERPIC_AREA, name));
    await ctx.tx.update(users).set({ userpicPath: name }).where(eq(users.id, ctx.userId));
    // Imported into an account that had a picture: the archive's replaces it.
    if (previous) await ctx.removeFile(USERPIC_AREA, previous);
  },
  deleteExtra: async (ctx) => {
    const name = await userpicName(ctx.tx, ctx.userId);
    if (name) await ctx.removeFile(USERPIC_AREA, name);
  },
};
