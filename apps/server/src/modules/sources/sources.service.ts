import {
  type CloudState,
  type Import,
  SOURCES_API,
  SourceCategorySchema,
  type SourceDataType,
  SourceDataTypeSchema,
  type SourceDetail,
  type SourceList,
  type SourceMethod,
  type SourceState,
  type SourceSummary,
} from "@tonus/contract";
import { AppError } from "../../lib/app-error.ts";
import type { AppContext } from "../../lib/context.ts";
import { findProvider } from "../connectors/connectors.providers.ts";
import type { ProviderDef } from "../connectors/connectors.types.ts";
import { latestImportsBySource } from "../imports/imports.service.ts";
import { CATALOGUE, findSourceEntry } from "./sources.catalogue.ts";
import { cloudStatesOf, isCloudAvailable, isCloudRetired } from "./sources.connectors.ts";
import { dataTypesOfMetrics } from "./sources.data-types.ts";
import type { MethodDef, SourceEntry } from "./sources.entries.ts";
import { guideSteps } from "./sources.guides.ts";

type Ctx = Pick<AppContext, "config" | "database" | "services" | "log">;

/** Can this installation bring the method's data in from the web? */
export function isMethodAvailable(method: MethodDef, ctx: Pick<AppContext, "config">): boolean {
  switch (method.kind) {
    case "file":
    case "bluetooth":
      return true;
    case "cloud":
      return isCloudAvailable(method.provider, ctx.config);
    case "aggregator": {
      const via = findSourceEntry(method.via);
      return via?.methods.some((m) => m.kind === "file") === true;
    }
    case "mobile_app":
      return false;
  }
}

function methodOut(entry: SourceEntry, method: MethodDef, ctx: Pick<AppContext, "config">): SourceMethod {
  switch (method.kind) {
    case "file":
      return { kind: "file", importer: method.importer, steps: guideSteps(method.guide, entry.name) };
    case "aggregator":
      return {
        kind: "aggregator",
        via: method.via,
        steps: guideSteps(method.guide, method.app ?? entry.name),
      };
    case "bluetooth":
      return { kind: "bluetooth", steps: guideSteps("bluetooth_measure", entry.name) };
    case "cloud": {
      const available = isCloudAvailable(method.provider, ctx.config);
      // The steps name the vendor as its button does ("Connect Oura"), not the gadget ("Oura Ring").
      const vendor = findProvider(method.provider)?.name ?? entry.name;
      return {
        kind: "cloud",
        provider: method.provider,
        available,
        steps: guideSteps(available ? "cloud_available" : "cloud_unavailable", vendor),
      };
    }
    case "mobile_app":
      return { kind: "mobile_app", platform: method.platform, steps: guideSteps(method.guide, entry.name) };
  }
}

function stateOf(last: Import | undefined): SourceState {
  if (!last) return "none";
  if (last.status === "needs_mapping") return "needs_mapping";
  if (last.status === "queued" || last.status === "running") return "importing";
  if (last.status === "done") return "imported";
  if (last.status === "failed") return "failed";
  return "none";
}

/** The entry's cloud connection: the first of its providers the caller has linked. */
function cloudOf(entry: SourceEntry, clouds: ReadonlyMap<string, CloudState>): CloudState {
  for (const m of entry.methods) {
    const state = m.kind === "cloud" ? clouds.get(m.provider) : undefined;
    if (state) return state;
  }
  return "none";
}

/** The providers of the entry's clouds this installation connects (configured, their API not turned off). */
function connectableClouds(entry: SourceEntry, ctx: Pick<AppContext, "config">) {
  return entry.methods.flatMap((m) => {
    if (m.kind !== "cloud" || !isCloudAvailable(m.provider, ctx.config)) return [];
    const provider = findProvider(m.provider);
    return provider ? [provider] : [];
  });
}

/**
 * What Tonus can take from the entry here: its declared data types (those of its file and app routes),
 * then what a cloud this installation connects brings besides (Oura's API also gives active calories
 * and SpO2, its trends file does not), so the header says what the account panel below it offers.
 */
function dataTypesOf(entry: SourceEntry, clouds: readonly ProviderDef[]): SourceDataType[] {
  const more = new Set<SourceDataType>();
  for (const provider of clouds) {
    for (const type of dataTypesOfMetrics(provider.metrics)) more.add(type);
    if (provider.bloodPressure) more.add("blood_pressure");
  }
  const declared = new Set(entry.dataTypes);
  return [...entry.dataTypes, ...SourceDataTypeSchema.options.filter((t) => more.has(t) && !declared.has(t))];
}

function summaryOf(
  entry: SourceEntry,
  last: Import | undefined,
  clouds: ReadonlyMap<string, CloudState>,
  ctx: Pick<AppContext, "config">,
): SourceSummary {
  const connectable = connectableClouds(entry, ctx);
  return {
    slug: entry.slug,
    name: entry.name,
    logo_url: SOURCES_API.logo.replace(":file", `${entry.slug}.svg`),
    categories: entry.categories,
    data_types: dataTypesOf(entry, connectable),
    method_kinds: entry.methods.map((m) => m.kind),
    connectable: entry.methods.some((m) => isMethodAvailable(m, ctx)),
    state: stateOf(last),
    last_import_at: last ? (last.finished_at ?? last.created) : null,
    cloud: cloudOf(entry, clouds),
    cloud_connectable: connectable.length > 0,
  };
}

/** The catalogue with the caller's state per entry. */
export async function listSources(ctx: Ctx, userId: string): Promise<SourceList> {
  const latest = await latestImportsBySource(ctx, userId);
  const clouds = await cloudStatesOf(ctx.database.db, userId);
  const used = new Set(CATALOGUE.flatMap((e) => e.categories));
  return {
    categories: SourceCategorySchema.options.filter((c) => used.has(c)),
    results: CATALOGUE.map((e) => summaryOf(e, latest.get(e.slug), clouds, ctx)),
  };
}

/** One entry with its steps and the caller's latest import from its page. */
export async function getSource(ctx: Ctx, userId: string, slug: string): Promise<SourceDetail> {
  const entry = findSourceEntry(slug);
  if (!entry) throw new AppError("not_found", "Not found");
  const last = (await latestImportsBySource(ctx, userId)).get(slug);
  const clouds = await cloudStatesOf(ctx.database.db, userId);
  return {
    ...summaryOf(entry, last, clouds, ctx),
    description: entry.description,
    // A vendor's retired API is news only to those still linked through it (to disconnect). A cloud
    // this installation can connect comes first: once linked, the data arrives with nothing more to do.
    methods: entry.methods
      .filter((m) => !(m.kind === "cloud" && isCloudRetired(m.provider) && !clouds.has(m.provider)))
      .map((m) => methodOut(entry, m, ctx))
      .sort((a, b) => Number(b.kind === "cloud" && b.available) - Number(a.kind === "cloud" && a.available)),
    last_import: last ?? null,
  };
}
