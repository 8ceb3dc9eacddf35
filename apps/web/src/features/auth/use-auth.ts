import { useQuery } from "@tanstack/react-query";
import type { SessionState, UserType } from "@tonus/contract";
import { API } from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";
import { readCookie } from "../../shared/api/cookies.ts";
import { hasPendingDirectLogin } from "./direct-login-params.ts";

export const SESSION_QUERY_KEY = ["session"] as const;

/** Spec §3 auth state. */
export type AuthState = {
  isLoading: boolean;
  isLoaded: boolean;
  isAuthenticated: boolean;
  userType: UserType;
  /** i18n key of why the state could not be loaded, or null. */
  message: string | null;
};

export function fetchSession(): Promise<SessionState> {
  return apiRequest<SessionState>(API.session, { isDataCall: false });
}

/** Before the session answers, the spec guesses "signed in" from the CSRF cookie or a URL token. */
function guessAuthenticated(): boolean {
  return readCookie("csrftoken") !== null || hasPendingDirectLogin();
}

export function useAuth(): AuthState {
  const session = useQuery({
    queryKey: SESSION_QUERY_KEY,
    queryFn: fetchSession,
    staleTime: 60_000,
    retry: 1,
  });
  if (session.data) {
    return {
      isLoading: false,
      isLoaded: true,
      isAuthenticated: session.data.authenticated,
      userType: session.data.authenticated ? session.data.user_type : "anonymous",
      message: null,
    };
  }
  return {
    isLoading: session.isPending,
    isLoaded: session.isError,
    isAuthenticated: session.isPending ? guessAuthenticated() : false,
    userType: "anonymous",
    message: session.isError ? "auth.state.failed" : null,
  };
}
