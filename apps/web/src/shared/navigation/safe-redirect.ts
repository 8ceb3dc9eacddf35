/** A redirect target that passed the allowlist: always a path on our own origin. */
export type SafeTarget = {
  /** Path, query and hash on our origin, always starting with exactly one "/". */
  path: string;
  /** True when the caller gave an absolute URL (on our origin), which the spec redirects with a full page load. */
  isAbsolute: boolean;
};

const MAX_TARGET_CHARS = 2048;
// Browsers drop tabs and newlines inside URLs ("java\tscript:") and treat "\" as "/": refuse both outright.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point here
const FORBIDDEN_CHARS = /[\u0000-\u0020\u007f-\u009f\\\u2028\u2029\u00a0\ufeff]/;
// The same characters percent-encoded, in case any later step decodes the target once more.
const FORBIDDEN_ENCODED = /%(?:[01][0-9a-f]|20|5c|7f)/i;

/**
 * The one gate for every redirect the app takes from input it does not control (destination, `/#path`,
 * the IFTTT forwarding): answers a same-origin path, or null for anything that could leave the origin.
 */
export function safeRedirectTarget(value: string | null | undefined, origin: string): SafeTarget | null {
  if (typeof value !== "string" || value.length === 0 || value.length > MAX_TARGET_CHARS) return null;
  if (FORBIDDEN_CHARS.test(value) || FORBIDDEN_ENCODED.test(value)) return null;
  const isAbsolute = !value.startsWith("/");
  if (value.startsWith("//")) return null;
  if (isAbsolute && !hasOwnOriginPrefix(value, origin)) return null;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  if (url.origin !== origin || url.username !== "" || url.password !== "") return null;
  // Dot segments can collapse to "//host" ("/.//evil.example"), which a browser reads as another host.
  if (url.pathname.startsWith("//")) return null;
  return { path: `${url.pathname}${url.search}${url.hash}`, isAbsolute };
}

function hasOwnOriginPrefix(value: string, origin: string): boolean {
  if (!value.toLowerCase().startsWith(origin.toLowerCase())) return false;
  const next = value.charAt(origin.length);
  return next === "" || next === "/" || next === "?" || next === "#";
}

/** The target behind `/#/some/path`, or null when the hash is empty or not one of our paths. */
export function getHashRedirectTarget(hash: string, origin: string): string | null {
  const raw = hash.startsWith("#") ? hash.slice(1) : hash;
  if (!raw.startsWith("/")) return null;
  const target = safeRedirectTarget(raw, origin);
  if (target === null || target.path === "/") return null;
  return target.path;
}
