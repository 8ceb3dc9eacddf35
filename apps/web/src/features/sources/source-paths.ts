/** The mobile app opens the catalogue under data-sources-mobile-back (no header or footer, spec §2). */
const MOBILE_BACK = "/data-sources-mobile-back";

export function isMobileBack(pathname: string): boolean {
  return pathname.startsWith(MOBILE_BACK);
}

/** The list page in the same variant (web or mobile-back) as `pathname`. */
export function listPath(pathname: string): string {
  return isMobileBack(pathname) ? MOBILE_BACK : "/data-sources";
}

/** One source's page in the same variant as `pathname`. */
export function sourcePath(pathname: string, slug: string): string {
  return `${listPath(pathname)}/${encodeURIComponent(slug)}`;
}
