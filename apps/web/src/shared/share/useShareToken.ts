import { useState } from "react";

const TOKEN = /^tsh_[A-Za-z0-9_-]{20,100}$/;

/** A share link's token from the address fragment, or null when it has none that looks like one. */
export function shareTokenFromHash(hash: string = window.location.hash): string | null {
  let token: string;
  try {
    token = decodeURIComponent(hash.slice(1));
  } catch {
    return null;
  }
  return TOKEN.test(token) ? token : null;
}

/**
 * The token of the share link this page was opened with (`/share-…#tsh_…`), read once. It lives in the
 * fragment, which browsers never send to a server, so it reaches only our API call.
 */
export function useShareToken(): string | null {
  const [token] = useState(() => shareTokenFromHash());
  return token;
}
