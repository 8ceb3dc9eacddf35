// Files the import tests upload, generated in memory: a small Apple Health export, hostile archives and
// XML, CSVs. The Apple Health generator and the zip writer are packages/importers' own test helpers.
import {
  emptyCounts,
  generateAppleHealthExport,
  type SyntheticCounts,
} from "../../../../../../packages/importers/test/synthetic-apple-health.ts";
import { buildZip, deflatedZeros } from "../../../../../../packages/importers/test/zip-writer.ts";

export { buildZip };

/** A synthetic export.xml of about `bytes` bytes, with what it holds. */
export async function appleHealthXml(bytes: number): Promise<{ data: Uint8Array; counts: SyntheticCounts }> {
  const counts = emptyCounts();
  const parts: Uint8Array[] = [];
  for await (const chunk of generateAppleHealthExport(bytes, counts, 256 * 1024)) parts.push(chunk);
  return { data: new Uint8Array(Buffer.concat(parts)), counts };
}

/** The same, as the export.zip the Health app writes. */
export async function appleHealthZip(bytes: number): Promise<{ data: Uint8Array; counts: SyntheticCounts }> {
  const xml = await appleHealthXml(bytes);
  return { data: buildZip([{ name: "apple_health_export/export.xml", data: xml.data }]), counts: xml.counts };
}

/**
 * Billion laughs (10 levels), external entities (a local file and `trapUrl`), a parameter entity and an
 * external DTD at `trapUrl` (a listener that must see no connection), and one record.
 */
export function xmlBomb(trapUrl: string, localFile = "/etc/passwd"): Uint8Array {
  let dtd = '<!ENTITY lol0 "lol">\n';
  for (let i = 1; i <= 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">\n`;
  dtd += `<!ENTITY xxe SYSTEM "file://${localFile}">\n<!ENTITY web SYSTEM "${trapUrl}/entity">\n`;
  dtd += `<!ENTITY % pe SYSTEM "${trapUrl}/evil.dtd">\n%pe;\n`;
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData SYSTEM "${trapUrl}/external.dtd" [
${dtd}]>
<HealthData locale="en_US">
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="&lol10;&xxe;&web;" unit="count/min" value="61" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:00:00 +0000"/>
</HealthData>
`;
  return new TextEncoder().encode(text);
}

const zeros = new Map<number, Uint8Array>();

/**
 * A zip whose one entry `name` inflates to `bytes` of zeros (about 1 KB per MB compressed), with a header
 * that lies: `lying` claims 1 KB, `ratio` claims 200 times its compressed size (the most the directory
 * check lets through), so only the checks made while inflating can stop it.
 */
export function zipBomb(bytes: number, name: string, lie: "lying" | "ratio"): Uint8Array {
  let deflated = zeros.get(bytes);
  if (!deflated) {
    deflated = deflatedZeros(bytes).deflated;
    zeros.set(bytes, deflated);
  }
  const uncompressedSize = lie === "lying" ? 1024 : deflated.length * 200;
  return buildZip([{ name, deflated, uncompressedSize, crc32: 0 }]);
}

/** A zip honest about inflating to `bytes` of zeros: refused from its directory alone. */
export function honestZipBomb(bytes: number): Uint8Array {
  const { deflated } = deflatedZeros(bytes);
  return buildZip([{ name: "apple_health_export/export.xml", deflated, uncompressedSize: bytes, crc32: 0 }]);
}

export const utf8 = (s: string) => new TextEncoder().encode(s);
/**
 * A Withings `bp.csv` (local times without a zone) of `readings` readings a few hours apart; every 25th
 * row is repeated right after itself, as an export merged from two downloads holds the same reading twice.
 */
export function withingsBpCsv(readings: number): Uint8Array {
  const lines = ["Date,Heart rate,Systolic,Diastolic,Comments"];
  const t0 = Date.UTC(2023, 0, 1, 7, 30);
  for (let i = 0; i < readings; i++) {
    const at = new Date(t0 + i * 5 * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
    const line = `"${at}",${60 + (i % 30)},${110 + (i % 40)},${70 + (i % 20)},`;
    lines.push(line);
    if (i % 25 === 0) lines.push(line);
  }
  return utf8(`${lines.join("\n")}\n`);
}
