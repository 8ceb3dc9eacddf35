import { useCallback } from "react";
import { useNavigate } from "react-router";
import { HOME_PATH } from "../../app/access.ts";
import { safeRedirectTarget } from "../../shared/navigation/safe-redirect.ts";

/** Where to go after signing in: a safe destination from the query, or /dashboard. */
export function useGoToDestination(): (search: string) => void {
  const navigate = useNavigate();
  return useCallback(
    (search: string) => {
      const target = safeRedirectTarget(
        new URLSearchParams(search).get("destination"),
        window.location.origin,
      );
      if (target?.isAbsolute) {
        // The spec's "destination contains http" case: a full page load, but only on our own origin.
        window.location.assign(`${window.location.origin}${target.path}`);
        return;
      }
      void navigate(target?.path ?? HOME_PATH, { replace: true });
    },
    [navigate],
  );
}

/** The destination parameter to carry along to another auth page, if it is safe. */
export function getSafeDestination(search: string): string | undefined {
  return safeRedirectTarget(new URLSearchParams(search).get("destination"), window.location.origin)?.path;
}
