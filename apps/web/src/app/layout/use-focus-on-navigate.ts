import { useEffect, useRef } from "react";
import { useLocation } from "react-router";

/**
 * After a client-side navigation, moves focus to the main landmark so screen readers announce the new page
 * and keyboard users start from its top; the first load keeps the browser's own focus.
 */
export function useFocusMainOnNavigate(): void {
  const { pathname } = useLocation();
  const isFirst = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every page change, by design
  useEffect(() => {
    if (isFirst.current) {
      isFirst.current = false;
      return;
    }
    document.getElementById("main")?.focus({ preventScroll: true });
    window.scrollTo({ top: 0 });
  }, [pathname]);
}
