/** Spec §2: header and footer disappear on these paths (pages shown inside the mobile app). */
const BARE_PATH_MARKERS = ["data-sources-mobile-back", "measure-details"];

export function isBarePath(pathname: string): boolean {
  return BARE_PATH_MARKERS.some((marker) => pathname.includes(marker));
}

export type Chrome = { hasHeader: boolean; hasFooter: boolean };

/** Which parts of the full shell show: the web view hides header and footer as well. */
export function getChrome(pathname: string, isWebView: boolean): Chrome {
  const isBare = isBarePath(pathname);
  return { hasHeader: !isBare && !isWebView, hasFooter: !isBare && !isWebView };
}
