import { SourceCategorySchema } from "@tonus/contract";
import { APP_ENTRIES } from "./sources.apps.ts";
import { DEVICE_ENTRIES, type SourceEntry } from "./sources.entries.ts";

/** The whole catalogue, ordered by category (the list page's sections) and then by name. */
export const CATALOGUE: readonly SourceEntry[] = [...DEVICE_ENTRIES, ...APP_ENTRIES].sort((a, b) => {
  const order = SourceCategorySchema.options;
  const byCategory = order.indexOf(a.categories[0] ?? "files") - order.indexOf(b.categories[0] ?? "files");
  return byCategory !== 0 ? byCategory : a.name.localeCompare(b.name, "en");
});

const BY_SLUG = new Map(CATALOGUE.map((e) => [e.slug, e]));

export function findSourceEntry(slug: string): SourceEntry | undefined {
  return BY_SLUG.get(slug);
}

/** Whether the entry has an export file Tonus reads (an upload under any other entry is refused). */
export function takesFiles(entry: SourceEntry): boolean {
  return entry.methods.some((m) => m.kind === "file");
}

/** True for the entry of any other spreadsheet: its files are always mapped column by column. */
export function isGenericCsv(entry: SourceEntry): boolean {
  return entry.methods.some((m) => m.kind === "file" && m.importer === "csv");
}
