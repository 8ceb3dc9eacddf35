import { useQueryClient } from "@tanstack/react-query";
import type { DirectLoginExchangeResponseSchema } from "@tonus/contract";
import { API } from "@tonus/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import type { z } from "zod";
import { buildSignInPath } from "../../app/access.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useGoToDestination } from "./destination.ts";
import { consumeDirectLoginParams, type DirectLoginParams } from "./direct-login-params.ts";
import { describeError } from "./error-text.ts";
import { SESSION_QUERY_KEY } from "./use-auth.ts";

type ExchangeResponse = z.infer<typeof DirectLoginExchangeResponseSchema>;

type State =
  | { kind: "working" }
  | { kind: "confirm"; currentEmail: string | undefined }
  | { kind: "failed"; message: string };

/** Direct login (spec §4): exchanges the one-time pair the companion app put in the URL for a session. */
export default function LoginDirectPage() {
  const { t } = useTranslation();
  const { search } = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const goToDestination = useGoToDestination();
  const params = useRef<DirectLoginParams | null | undefined>(undefined);
  const [state, setState] = useState<State>({ kind: "working" });
  // StrictMode runs effects twice in development; the pair is single-use, so exchange it once.
  const hasStarted = useRef(false);

  const exchange = async (confirmSwitch: boolean) => {
    const pair = params.current;
    if (!pair?.token || !pair.sessionId) return;
    setState({ kind: "working" });
    try {
      const answer = await apiRequest<ExchangeResponse>(API.directLogin, {
        method: "POST",
        body: { token: pair.token, session_id: pair.sessionId, confirm_switch: confirmSwitch || undefined },
        isDataCall: false,
      });
      if (answer.needs_confirmation) {
        setState({ kind: "confirm", currentEmail: answer.current_email });
        return;
      }
      params.current = null;
      queryClient.clear();
      await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      goToDestination(search);
    } catch (error) {
      params.current = null;
      setState({ kind: "failed", message: describeError(t, error) });
    }
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the exchange runs once, on arrival
  useEffect(() => {
    if (hasStarted.current) return;
    hasStarted.current = true;
    // Taken in the effect, not during render: React may discard a render, and the pair is single-use.
    params.current = consumeDirectLoginParams();
    if (!params.current?.token || !params.current.sessionId) {
      const destination = new URLSearchParams(search).get("destination") ?? "/dashboard";
      void navigate(buildSignInPath(destination, ""), { replace: true });
      return;
    }
    void exchange(false);
  }, []);

  if (state.kind === "confirm") {
    return (
      <div className="stack">
        <p>
          {t("auth.direct.confirm_text", { email: state.currentEmail ?? t("auth.direct.another_account") })}
        </p>
        <div className="actions">
          <Button onClick={() => void exchange(true)}>{t("auth.direct.confirm_switch")}</Button>
          <Button variant="secondary" onClick={() => void navigate("/dashboard", { replace: true })}>
            {t("auth.direct.stay")}
          </Button>
        </div>
      </div>
    );
  }
  if (state.kind === "failed") {
    return (
      <div className="stack">
        <Alert status="error">{state.message}</Alert>
        <p>{t("auth.direct.failed_hint")}</p>
        <Button onClick={() => void navigate("/auth/signin", { replace: true })}>
          {t("auth.signin.submit")}
        </Button>
      </div>
    );
  }
  return <LoadingState />;
}
