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

/** Billion laughs (10 levels), an external entity and a parameter entity in the DTD, and one record. */
export function xmlBomb(): Uint8Array {
  let dtd = '<!ENTITY lol0 "lol">\n';
  for (let i = 1; i <= 10; i++) dtd += `<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">\n`;
  dtd +=
    '<!ENTITY xxe SYSTEM "file:///etc/passwd">\n<!ENTITY % pe SYSTEM "http://127.0.0.1:9/evil.dtd">\n%pe;\n';
  const text = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
${dtd}]>
<HealthData locale="en_US">
 <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="&lol10;&xxe;" unit="count/min" value="61" startDate="2024-01-01 10:00:00 +0000" endDate="2024-01-01 10:00:00 +0000"/>
</HealthData>
`;
  return new TextEncoder().encode(text);
}

/** A zip whose export.xml claims 1 KB but inflates to `bytes` of zeros (a lying header). */
export function lyingZipBomb(bytes: number): Uint8Array {
  const { deflated } = deflatedZeros(bytes);
  return buildZip([{ name: "apple_health_export/export.xml", deflated, uncompressedSize: 1024, crc32: 0 }]);
}

/** A zip honest about inflating to `bytes` of zeros: refused from its directory alone. */
export function honestZipBomb(bytes: number): Uint8Array {
  const { deflated } = deflatedZeros(bytes);
  return buildZip([{ name: "apple_health_export/export.xml", deflated, uncompressedSize: bytes, crc32: 0 }]);
}

export const utf8 = (s: string) => new TextEncoder().encode(s);
