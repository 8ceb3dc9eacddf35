import type { SourceEntry } from "./sources.entries.ts";

const escapeXml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c] ?? c,
  );

/**
 * The entry's logo: a monogram on a coloured disc that we draw ourselves. Brands' own logos are their
 * owners' marks and are never copied; the name next to the monogram says whose product it is.
 */
export function monogramSvg(entry: Pick<SourceEntry, "monogram" | "hue">): string {
  const text = escapeXml(entry.monogram);
  const size = text.length >= 3 ? 15 : text.length === 2 ? 19 : 24;
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48" viewBox="0 0 48 48" role="img" aria-hidden="true">',
    `<circle cx="24" cy="24" r="24" fill="hsl(${entry.hue} 45% 38%)"/>`,
    `<text x="24" y="24" dy="0.35em" text-anchor="middle" font-family="system-ui, sans-serif" font-weight="700" font-size="${size}" fill="#fff">${text}</text>`,
    "</svg>",
  ].join("");
}
