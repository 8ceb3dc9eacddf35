import type { CsvPreview, SourceSummary } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { buildMapping, initialChoices } from "./CsvMappingForm.tsx";
import { matchesQuery } from "./DataSourcesPage.tsx";
import { formatBytes, fraction } from "./import-format.ts";
import { listPath, sourcePath } from "./source-paths.ts";

const garmin: SourceSummary = {
  slug: "garmin-fenix",
  name: "Garmin fēnix",
  logo_url: "/media/sources/garmin-fenix.svg",
  categories: ["watches"],
  data_types: ["heart_rate", "sleep"],
  method_kinds: ["file"],
  connectable: true,
  state: "none",
  last_import_at: null,
};

describe("data-source search", () => {
  const label = (t: string) => ({ heart_rate: "пульс", sleep: "сон" })[t] ?? t;
  it("finds a source by its name without caring for case or accents, and by what it measures", () => {
    expect(matchesQuery(garmin, "FENIX", label)).toBe(true);
    expect(matchesQuery(garmin, "  сон ", label)).toBe(true);
    expect(matchesQuery(garmin, "oura", label)).toBe(false);
    expect(matchesQuery(garmin, "", label)).toBe(true);
  });
});

describe("data-source paths", () => {
  it("keeps the mobile app's header-less variant when moving between list and entry", () => {
    expect(sourcePath("/data-sources", "oura-ring")).toBe("/data-sources/oura-ring");
    expect(sourcePath("/data-sources-mobile-back/polar-h10", "apple-health")).toBe(
      "/data-sources-mobile-back/apple-health",
    );
    expect(listPath("/data-sources-mobile-back/polar-h10")).toBe("/data-sources-mobile-back");
  });
});

describe("CSV mapping", () => {
  const preview: CsvPreview = {
    delimiter: ";",
    header: ["Datum", "Puls", "Gewicht (kg)", "Notiz"],
    rows: [["01.03.2024", "61", "70,5", "gut"]],
    date_order: "dmy",
    suggested: {
      time: "Datum",
      time_format: "dmy",
      columns: [{ column: "Gewicht (kg)", metric: "weight", unit: "kg" }],
    },
    warnings: [],
  };

  it("starts from the suggestion and sends only the columns given a measure, with their units", () => {
    const choices = { ...initialChoices(preview), Puls: "heart_rate" };
    expect(buildMapping(preview, "Datum", "dmy", choices)).toEqual({
      time: "Datum",
      time_format: "dmy",
      columns: [
        { column: "Puls", metric: "heart_rate" },
        { column: "Gewicht (kg)", metric: "weight", unit: "kg" },
      ],
    });
  });

  it("sends nothing while no column has a measure", () => {
    expect(
      buildMapping(preview, "Datum", "dmy", { Datum: "", Puls: "", "Gewicht (kg)": "", Notiz: "" }),
    ).toBeNull();
  });
});

describe("progress formatting", () => {
  it("writes sizes in the reader's language and bounds the share", () => {
    expect(formatBytes(1536, "en", ["B", "KB", "MB"])).toBe("1.5 KB");
    expect(formatBytes(3 * 1024 ** 3, "ru", ["Б", "КБ", "МБ", "ГБ"])).toBe("3 ГБ");
    expect(fraction(5, 0)).toBe(0);
    expect(fraction(15, 10)).toBe(1);
  });
});
