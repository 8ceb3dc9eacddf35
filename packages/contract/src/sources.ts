import { z } from "zod";
import { LocalizedTextSchema } from "./common.ts";
import { ImportSchema } from "./imports.ts";

/**
 * The data-source catalogue (spec §2 /data-sources and /data-sources/{sourceSlug}, §3 Data sources,
 * PRODUCT.md §7): the gadgets and apps people already use and, for each, the ways Tonus can really read
 * its data. Texts that belong to one entry (description, step-by-step instructions) are objects keyed by
 * locale, like the spec's other localized texts; labels shared by all entries live in the web catalogues.
 */
export const SOURCES_API = {
  /** The catalogue with the caller's state per entry. */
  list: "/dashboard_api/v1/data-sources/",
  /** One entry with its instructions and the caller's latest import from it. */
  detail: "/dashboard_api/v1/data-sources/:slug/",
  /** The entry's monogram, `<slug>.svg` (an SVG we draw ourselves; never a brand's own logo). */
  logo: "/media/sources/:file",
} as const;

export const SourceCategorySchema = z.enum([
  "platforms",
  "watches",
  "rings",
  "straps",
  "scales",
  "bp_monitors",
  "bike_computers",
  "sleep_apps",
  "nutrition_apps",
  "hrv_apps",
  "fitness_apps",
  "files",
]);
export type SourceCategory = z.infer<typeof SourceCategorySchema>;

/** What Tonus can take from a source (only what its importers really read). */
export const SourceDataTypeSchema = z.enum([
  "heart_rate",
  "rr_intervals",
  "hrv",
  "resting_heart_rate",
  "steps",
  "distance",
  "energy",
  "sleep",
  "weight",
  "body_composition",
  "height",
  "blood_pressure",
  "spo2",
  "respiratory_rate",
  "skin_temperature",
  "water",
  "carbohydrates",
  "workouts",
]);
export type SourceDataType = z.infer<typeof SourceDataTypeSchema>;

/** The file readers of packages/importers a file route uses. */
export const FileImporterSchema = z.enum([
  "apple_health",
  "fit",
  "samsung_health",
  "fitbit",
  "google_fit",
  "oura",
  "whoop",
  "withings",
  "rr_text",
  "csv",
]);
export type FileImporter = z.infer<typeof FileImporterSchema>;

export const LocalizedStepsSchema = z.object({ en: z.array(z.string()), ru: z.array(z.string()) });
export type LocalizedSteps = z.infer<typeof LocalizedStepsSchema>;

/**
 * One way to get a source's data into Tonus, with its steps:
 * - `file`: an export file Tonus reads (upload on the source's page);
 * - `aggregator`: the source writes to another entry (`via`, e.g. Apple Health) whose file Tonus reads;
 * - `bluetooth`: a chest strap measured live on the Measure page (Web Bluetooth);
 * - `cloud`: the vendor's OAuth2 API, `available` only when the operator configured a connector for
 *   `provider`; otherwise the page says plainly that this installation cannot connect it;
 * - `mobile_app`: connected in the Tonus mobile app only (Apple Health, spec §2), not on the web.
 */
export const SourceMethodSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("file"), importer: FileImporterSchema, steps: LocalizedStepsSchema }),
  z.object({ kind: z.literal("aggregator"), via: z.string(), steps: LocalizedStepsSchema }),
  z.object({ kind: z.literal("bluetooth"), steps: LocalizedStepsSchema }),
  z.object({
    kind: z.literal("cloud"),
    provider: z.string(),
    available: z.boolean(),
    steps: LocalizedStepsSchema,
  }),
  z.object({
    kind: z.literal("mobile_app"),
    platform: z.enum(["ios", "android"]),
    steps: LocalizedStepsSchema,
  }),
]);
export type SourceMethod = z.infer<typeof SourceMethodSchema>;
export type SourceMethodKind = SourceMethod["kind"];

/**
 * The caller's state for an entry: `needs_mapping` while its latest import waits for the person to
 * choose its columns, `importing` while it is queued or running, `imported` after a finished one,
 * `failed` when the latest one failed; `none` otherwise.
 */
export const SourceStateSchema = z.enum(["none", "needs_mapping", "importing", "imported", "failed"]);
export type SourceState = z.infer<typeof SourceStateSchema>;

/** `connected` while the caller's account at the provider is linked; `reconnect_needed` when it must be authorised again. */
export const CloudStateSchema = z.enum(["none", "connected", "reconnect_needed"]);
export type CloudState = z.infer<typeof CloudStateSchema>;

export const SourceSummarySchema = z.object({
  slug: z.string(),
  name: z.string(),
  logo_url: z.string(),
  categories: z.array(SourceCategorySchema),
  data_types: z.array(SourceDataTypeSchema),
  /** The kinds of its methods, in the order the page lists them. */
  method_kinds: z.array(z.enum(["file", "aggregator", "bluetooth", "cloud", "mobile_app"])),
  /** True when this installation offers at least one way to bring the data in from the web. */
  connectable: z.boolean(),
  state: SourceStateSchema,
  last_import_at: z.string().nullable(),
  /** The caller's cloud connection to the entry's provider (`cloud` methods), whatever the file imports say. */
  cloud: CloudStateSchema,
  /** True when this installation can link the person's account at the vendor (a configured, live cloud). */
  cloud_connectable: z.boolean(),
});
export type SourceSummary = z.infer<typeof SourceSummarySchema>;

export const SourceListSchema = z.object({
  categories: z.array(SourceCategorySchema),
  results: z.array(SourceSummarySchema),
});
export type SourceList = z.infer<typeof SourceListSchema>;

export const SourceSlugParamsSchema = z.object({ slug: z.string().max(80) });

export const SourceDetailSchema = SourceSummarySchema.extend({
  description: LocalizedTextSchema,
  methods: z.array(SourceMethodSchema),
  /** The caller's latest import from this page, with its progress or report. */
  last_import: ImportSchema.nullable(),
});
export type SourceDetail = z.infer<typeof SourceDetailSchema>;
