import { useLocation } from "react-router";
import { matchRoute } from "../../app/routes.ts";

/** The `:name` parameters of the current route row (the app routes through one table, not nested routes). */
export function useRouteParams(): Record<string, string> {
  const { pathname } = useLocation();
  return matchRoute(pathname)?.params ?? {};
}
