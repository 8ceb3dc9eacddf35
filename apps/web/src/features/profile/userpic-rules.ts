/** Spec §5: one file, at most 5 MB, JPG, GIF, PNG or BMP. */
export const USERPIC_MAX_BYTES = 5 * 1024 * 1024;
export const USERPIC_TYPES = ["image/jpeg", "image/gif", "image/png", "image/bmp"];
const USERPIC_EXTENSIONS = /\.(jpe?g|gif|png|bmp)$/i;

export type UserpicProblem = "none" | "several_files" | "wrong_type" | "too_large";

/** Checks a picked or dropped file list; an empty list (an empty drop) answers "none" and is ignored. */
export function checkUserpicFiles(
  files: readonly Pick<File, "name" | "type" | "size">[],
): UserpicProblem | "ok" {
  if (files.length === 0) return "none";
  if (files.length > 1) return "several_files";
  const [file] = files;
  if (!file) return "none";
  const isImage =
    USERPIC_TYPES.includes(file.type) || (file.type === "" && USERPIC_EXTENSIONS.test(file.name));
  if (!isImage) return "wrong_type";
  if (file.size > USERPIC_MAX_BYTES) return "too_large";
  return "ok";
}
