import { useQueryClient } from "@tanstack/react-query";
import type { Profile } from "@tonus/contract";
import { useEffect } from "react";
import { useLocation } from "react-router";
import { useConfig } from "../../shared/api/use-config.ts";
import { PROFILE_QUERY_KEY } from "../profile/use-profile.ts";
import { buildEvent, deviceId, mayTrack, sendEvent } from "./analytics.ts";

/**
 * First-party page views, sent only when the config allows and the browser does not object. The user id
 * is read from the already loaded profile (no request of its own); the server pseudonymises it.
 */
export function AnalyticsPageViews() {
  const config = useConfig();
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  useEffect(() => {
    const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
    const token = config.data?.tonus_analytics_token;
    if (
      !token ||
      !mayTrack(config.data, { globalPrivacyControl: nav.globalPrivacyControl, doNotTrack: nav.doNotTrack })
    )
      return;
    const profile = queryClient.getQueryData<Profile>(PROFILE_QUERY_KEY);
    const event = buildEvent(
      "page_view",
      { path: pathname },
      { userId: profile?.id ?? null, deviceId: deviceId(globalThis.localStorage) },
    );
    void sendEvent(token, event);
  }, [config.data, pathname, queryClient]);
  return null;
}
