import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  REFERRAL_API,
  type ReferralInviteResponse,
  type ReferralLookupResponse,
  type ReferralSummary,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

export const REFERRAL_QUERY_KEY = ["referral"] as const;

export function useReferralSummary() {
  return useQuery({
    queryKey: REFERRAL_QUERY_KEY,
    queryFn: () => apiRequest<ReferralSummary>(REFERRAL_API.referral),
  });
}

/** Makes the person's referral code (the first visit); the summary comes back with it. */
export function useCreateReferralCode() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<ReferralSummary>(REFERRAL_API.code, { method: "POST" }),
    onSuccess: (data) => queryClient.setQueryData(REFERRAL_QUERY_KEY, data),
  });
}

export function lookupFriend(email: string) {
  return apiRequest<ReferralLookupResponse>(REFERRAL_API.lookup, { method: "POST", body: { email } });
}

export function inviteFriend(email: string) {
  return apiRequest<ReferralInviteResponse>(REFERRAL_API.invite, { method: "POST", body: { email } });
}
