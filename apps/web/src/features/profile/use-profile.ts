import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Profile, ProfileUpdate } from "@tonus/contract";
import { API } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { apiRequest } from "../../shared/api/client.ts";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { useAuth } from "../auth/use-auth.ts";

export const PROFILE_QUERY_KEY = ["profile"] as const;

export function useProfile() {
  const auth = useAuth();
  return useQuery({
    queryKey: PROFILE_QUERY_KEY,
    queryFn: () => apiRequest<Profile>(API.profile),
    enabled: auth.userType === "full",
    staleTime: 30_000,
  });
}

/**
 * Profile update (spec §4): applied to the cache at once, confirmed by the server with "Changes saved";
 * on failure the server's value is shown again.
 */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  const { t } = useTranslation();
  return useMutation({
    mutationFn: (update: ProfileUpdate) => apiRequest<Profile>(API.profile, { method: "PUT", body: update }),
    onMutate: async (update) => {
      await queryClient.cancelQueries({ queryKey: PROFILE_QUERY_KEY });
      const previous = queryClient.getQueryData<Profile>(PROFILE_QUERY_KEY);
      if (previous) queryClient.setQueryData<Profile>(PROFILE_QUERY_KEY, { ...previous, ...update });
      return { previous };
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(PROFILE_QUERY_KEY, saved);
      showAlert(t("profile.saved"));
    },
    onError: (_error, _update, context) => {
      if (context?.previous) queryClient.setQueryData(PROFILE_QUERY_KEY, context.previous);
      void queryClient.invalidateQueries({ queryKey: PROFILE_QUERY_KEY });
      showAlert(t("profile.save_failed"), "error");
    },
  });
}
