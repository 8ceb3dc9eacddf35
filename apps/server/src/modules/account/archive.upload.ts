import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { ARCHIVE_IMPORT_MAX_BYTES } from "@tonus/contract";
import type { FastifyRequest } from "fastify";
import { AppError } from "../../lib/app-error.ts";
import { newUploadPath } from "./archive.import.ts";

const ONE_FILE = "Upload exactly one archive file (the zip Tonus made)";

/**
 * Streams the request's one file part to FILES_DIR/imports (never whole in memory) and answers its path;
 * the caller removes it. More than ARCHIVE_IMPORT_MAX_BYTES, no file, two files or a broken multipart body
 * is a 4xx and leaves no file behind.
 */
export async function receiveArchiveUpload(request: FastifyRequest, filesDir: string): Promise<string> {
  if (!request.isMultipart()) throw new AppError("validation_failed", ONE_FILE);
  const target = await newUploadPath(filesDir);
  let received = false;
  try {
    for await (const part of request.parts({ limits: { fileSize: ARCHIVE_IMPORT_MAX_BYTES, files: 1 } })) {
      if (part.type !== "file") continue;
      if (received) throw new AppError("validation_failed", ONE_FILE);
      await pipeline(part.file, createWriteStream(target, { mode: 0o600 }));
      if (part.file.truncated) throw new AppError("file_too_large", "The archive must be at most 100 MB");
      received = true;
    }
    if (!received) throw new AppError("validation_failed", ONE_FILE);
    return target;
  } catch (error) {
    await fs.rm(target, { force: true });
    const code = (error as { code?: string }).code;
    if (code === "FST_REQ_FILE_TOO_LARGE")
      throw new AppError("file_too_large", "The archive must be at most 100 MB");
    if (code === "FST_FILES_LIMIT") throw new AppError("validation_failed", ONE_FILE);
    if (error instanceof AppError || typeof (error as { statusCode?: unknown }).statusCode === "number")
      throw error;
    // Only multipart parsing and the file write run here: an error without a status is a broken body.
    throw new AppError("validation_failed", "Malformed multipart body");
  }
}
