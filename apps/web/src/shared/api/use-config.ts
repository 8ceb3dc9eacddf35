import { useQuery } from "@tanstack/react-query";
import type { ConfigEnv } from "@tonus/contract";
import { API } from "@tonus/contract";
import { apiRequest } from "./client.ts";

/** The config query; analytics reads it from the cache at each event. */
export const CONFIG_QUERY_KEY = ["config"] as const;

export function useConfig() {
  return useQuery({
    queryKey: CONFIG_QUERY_KEY,
    queryFn: () => apiRequest<ConfigEnv>(API.configEnv),
    staleTime: 5 * 60_000,
  });
}
