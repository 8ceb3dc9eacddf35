import { useQueryClient } from "@tanstack/react-query";
import { API, type ConfigEnv, type Profile, type SessionState } from "@tonus/contract";
import { useEffect, useMemo } from "react";
import { useLocation } from "react-router";
import { apiRequest } from "../../shared/api/client.ts";
import { CONFIG_QUERY_KEY, useConfig } from "../../shared/api/use-config.ts";
import { SESSION_QUERY_KEY } from "../auth/use-auth.ts";
import { PROFILE_QUERY_KEY } from "../profile/use-profile.ts";
import { createTracker, deviceId, sendEvent } from "./analytics.ts";
import { setAnalyticsSink } from "./track.ts";

/**
 * First-party analytics: installs the sink `trackEvent` reports to, and sends page views. Whether
 * anything is sent is decided per event (config flag and token, GPC/DNT). The person's id comes from the
 * loaded profile; only a funnel event of a signed-in person may load it (page views never request it).
 */
export function Analytics() {
  const config = useConfig();
  const queryClient = useQueryClient();
  const { pathname } = useLocation();
  const track = useMemo(
    () =>
      createTracker({
        getConfig: () => queryClient.getQueryData<ConfigEnv>(CONFIG_QUERY_KEY),
        getSignals: () => {
          const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
          return { globalPrivacyControl: nav.globalPrivacyControl, doNotTrack: nav.doNotTrack };
        },
        getUserId: async (mayFetch) => {
          const cached = queryClient.getQueryData<Profile>(PROFILE_QUERY_KEY);
          if (cached || !mayFetch) return cached?.id ?? null;
          if (queryClient.getQueryData<SessionState>(SESSION_QUERY_KEY)?.user_type !== "full") return null;
          const profile = await queryClient.fetchQuery({
            queryKey: PROFILE_QUERY_KEY,
            queryFn: () => apiRequest<Profile>(API.profile, { isDataCall: false }),
            staleTime: 30_000,
          });
          return profile.id;
        },
        getDeviceId: () => deviceId(globalThis.localStorage),
        send: (token, event) => sendEvent(token, event),
      }),
    [queryClient],
  );
  useEffect(() => {
    setAnalyticsSink(track);
    return () => setAnalyticsSink(null);
  }, [track]);
  useEffect(() => {
    if (!config.data) return;
    void track("page_view", { path: pathname });
  }, [config.data, pathname, track]);
  return null;
}
