import { useQuery } from "@tanstack/react-query";
import type { ConfigEnv } from "@tonus/contract";
import { API } from "@tonus/contract";
import { apiRequest } from "./client.ts";

export function useConfig() {
  return useQuery({
    queryKey: ["config"],
    queryFn: () => apiRequest<ConfigEnv>(API.configEnv),
    staleTime: 5 * 60_000,
  });
}
