import { type ImportUploadFields, ImportUploadFieldsSchema } from "@tonus/contract";
import type { FastifyRequest } from "fastify";
import { AppError } from "../../lib/app-error.ts";
import { deleteImportFile, newStoredName, type SavedUpload, saveUpload } from "./imports.files.ts";

export type ReceivedUpload = {
  storedName: string;
  saved: SavedUpload;
  fileName: string;
  fields: ImportUploadFields;
};

/**
 * Reads an import upload: exactly one `file` part, streamed to disk under a generated name (at most
 * `capBytes`; past that the file is removed and the upload refused with 413, RELIABILITY U1/U9), and the
 * form fields, in any order. Anything else in the body is refused with a 4xx, never a 5xx. A `source`
 * field sent before the file is checked with `checkSource` at once, so a refused upload is not stored.
 */
export async function receiveUpload(
  request: FastifyRequest,
  filesDir: string,
  capBytes: number,
  tooLarge: () => AppError,
  checkSource: (slug: string) => void = () => {},
): Promise<ReceivedUpload> {
  if (!request.isMultipart())
    throw new AppError("validation_failed", "Upload the file as multipart/form-data");
  const fields: Record<string, string> = {};
  let received: { storedName: string; saved: SavedUpload; fileName: string } | undefined;
  let storedName: string | null = null;
  const cleanup = () => deleteImportFile(filesDir, storedName);
  try {
    const parts = request.parts({
      limits: { fileSize: capBytes, files: 1, fields: 10, fieldSize: 1000, parts: 11 },
    });
    for await (const part of parts) {
      if (part.type === "field") {
        if (typeof part.value === "string") fields[part.fieldname] = part.value;
        if (part.fieldname === "source" && typeof part.value === "string" && !received)
          checkSource(part.value);
        continue;
      }
      if (part.fieldname !== "file" || received) {
        part.file.resume();
        throw new AppError("validation_failed", "Upload exactly one file in the field “file”");
      }
      const name = newStoredName();
      storedName = name;
      received = {
        storedName: name,
        fileName: part.filename ?? "",
        saved: await saveUpload(filesDir, name, part.file),
      };
      if (received.saved.truncated) throw tooLarge();
    }
  } catch (error) {
    await cleanup();
    const code = (error as { code?: string }).code;
    if (code === "FST_REQ_FILE_TOO_LARGE") throw tooLarge();
    if (code === "FST_FILES_LIMIT") throw new AppError("validation_failed", "Upload exactly one file");
    if (error instanceof AppError) throw error;
    if (typeof (error as { statusCode?: unknown }).statusCode === "number") throw error;
    throw new AppError("validation_failed", "Malformed multipart body");
  }
  if (!received) throw new AppError("validation_failed", "Upload exactly one file in the field “file”");
  const parsed = ImportUploadFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    await cleanup();
    throw new AppError("validation_failed", "The upload's fields are not valid", {
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return { ...received, fields: parsed.data };
}
