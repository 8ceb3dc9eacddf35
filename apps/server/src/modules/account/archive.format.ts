import type { AccountArchive } from "../../lib/registry.ts";

/**
 * The archive's spreadsheet and FHIR forms. CSV (RFC 4180, UTF-8 with BOM): a text cell that would start a
 * formula (= + - @ tab CR NUL) is prefixed with ' (RELIABILITY X2); numbers and booleans are written as
 * they are, so `-5.2` stays a number; nested values are written as JSON text.
 */
const FORMULA_START = /^[=+\-@\t\r\0]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  let text = typeof value === "string" ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: readonly Record<string, unknown>[]): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const lines = [
    columns.map(cell).join(","),
    ...rows.map((row) => columns.map((c) => cell(row[c])).join(",")),
  ];
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}

type Row = Record<string, unknown>;
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const iso = (v: unknown) => (typeof v === "string" ? new Date(v).toISOString() : null);

function quantity(value: number, unit: string, code: string) {
  return { value, unit, system: "http://unitsofmeasure.org", code };
}

function observation(id: string, code: string, display: string, at: string, extra: Row): Row {
  return {
    fullUrl: `urn:uuid:${id}`,
    resource: {
      resourceType: "Observation",
      id,
      status: "final",
      category: [
        {
          coding: [
            {
              system: "http://terminology.hl7.org/CodeSystem/observation-category",
              code: "vital-signs",
              display: "Vital Signs",
            },
          ],
        },
      ],
      code: { coding: [{ system: "http://loinc.org", code, display }], text: display },
      effectiveDateTime: at,
      ...extra,
    },
  };
}

/**
 * A FHIR R4 `collection` Bundle of the person's vital-sign Observations: blood-pressure panels
 * (85354-9 with systolic 8480-6 and diastolic 8462-4), heart rate (8867-4) and HRV SDNN (80404-7),
 * UCUM units, times in UTC with their offset (Z).
 */
export function toFhirBundle(archive: AccountArchive): Row {
  const entries: Row[] = [];
  const bp = (archive.sections.bp?.tables.bp_readings ?? []) as Row[];
  for (const r of bp) {
    const at = iso(r.measured_at);
    const sys = num(r.systolic);
    const dia = num(r.diastolic);
    if (!at || sys === null || dia === null) continue;
    entries.push(
      observation(String(r.id), "85354-9", "Blood pressure panel with all children optional", at, {
        component: [
          {
            code: {
              coding: [{ system: "http://loinc.org", code: "8480-6", display: "Systolic blood pressure" }],
            },
            valueQuantity: quantity(sys, "mmHg", "mm[Hg]"),
          },
          {
            code: {
              coding: [{ system: "http://loinc.org", code: "8462-4", display: "Diastolic blood pressure" }],
            },
            valueQuantity: quantity(dia, "mmHg", "mm[Hg]"),
          },
        ],
      }),
    );
    const pulse = num(r.pulse);
    if (pulse !== null)
      entries.push(
        observation(`${r.id}-hr`, "8867-4", "Heart rate", at, {
          valueQuantity: quantity(pulse, "beats/minute", "/min"),
        }),
      );
  }
  const measurements = (archive.sections.measurements?.tables.measurements ?? []) as Row[];
  for (const m of measurements) {
    const at = iso(m.started_at);
    const result = (m.result ?? {}) as Row;
    if (!at) continue;
    const hr = num(result.heart_rate);
    if (hr !== null)
      entries.push(
        observation(`${m.id}-hr`, "8867-4", "Heart rate", at, {
          valueQuantity: quantity(hr, "beats/minute", "/min"),
        }),
      );
    const sdnn = num(result.stdrr);
    if (sdnn !== null)
      entries.push(
        observation(
          `${m.id}-sdnn`,
          "80404-7",
          "R-R interval.standard deviation (Heart rate variability)",
          at,
          {
            valueQuantity: quantity(sdnn, "ms", "ms"),
          },
        ),
      );
  }
  return { resourceType: "Bundle", type: "collection", timestamp: archive.exported_at, entry: entries };
}

export const ARCHIVE_README = `Tonus account archive

account.json       everything, in the format Tonus imports (sections → tables → rows)
<section>/<table>.csv  the same rows as spreadsheets (UTF-8 with BOM; a text cell that would start a
                   formula begins with '; times are ISO 8601 in UTC; units as the column names say:
                   heights in cm, weights in kg, pressure in mmHg, RR intervals in ms)
fhir-bundle.json   a FHIR R4 Bundle (type collection) of vital-sign Observations with LOINC codes and
                   UCUM units: blood pressure, heart rate, HRV SDNN
`;
