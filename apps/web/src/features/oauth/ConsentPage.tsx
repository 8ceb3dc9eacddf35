import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { SIGN_IN_PATH, withQuery } from "../../app/access.ts";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useAuth } from "../auth/use-auth.ts";
import { decideAuthorization, useAuthorizationRequest } from "./oauth-api.ts";

/**
 * "Authorize IFTTT" (spec §2): the consent for a pending authorization `?request=<id>`. Signed-out
 * visitors sign in first and come back here; the decision sends the browser to the client's exactly
 * registered redirect URI, the one place the app leaves its own hosts.
 */
export default function ConsentPage() {
  const { t } = useTranslation();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const auth = useAuth();
  const id = new URLSearchParams(search).get("request") ?? "";
  const signedIn = auth.isLoaded && auth.userType === "full";
  const info = useAuthorizationRequest(id, signedIn);
  const [deciding, setDeciding] = useState<"allow" | "deny" | null>(null);
  const [failed, setFailed] = useState(false);

  const lostSession = info.error instanceof ApiError && info.error.status === 403;
  useEffect(() => {
    if ((auth.isLoaded && auth.userType !== "full") || lostSession) {
      void navigate(withQuery(SIGN_IN_PATH, { destination: `${pathname}${search}` }), { replace: true });
    }
  }, [auth.isLoaded, auth.userType, lostSession, navigate, pathname, search]);

  if (!id) return <Alert status="error">{t("oauth.consent.missing")}</Alert>;
  if (!signedIn || info.isPending || lostSession) return <LoadingState />;
  if (info.isError) {
    const gone = info.error instanceof ApiError && info.error.status === 404;
    return <Alert status="error">{t(gone ? "oauth.consent.missing" : "oauth.consent.load_failed")}</Alert>;
  }

  const decide = async (approve: boolean) => {
    setDeciding(approve ? "allow" : "deny");
    setFailed(false);
    try {
      const { redirect_to } = await decideAuthorization(id, approve);
      window.location.assign(redirect_to);
    } catch {
      setDeciding(null);
      setFailed(true);
    }
  };

  const request = info.data;
  return (
    <div className="stack oauth-consent">
      <p>{t("oauth.consent.asks", { client: request.client.name })}</p>
      <h2>{t("oauth.consent.scopes_title")}</h2>
      <ul>
        {request.scopes.map((scope) => (
          <li key={scope}>{t(`oauth.scopes.${scope}`)}</li>
        ))}
      </ul>
      <p>{t("oauth.consent.return_to", { origin: request.redirect_origin })}</p>
      <p>{t("oauth.consent.revoke_hint")}</p>
      {failed && <Alert status="error">{t("oauth.consent.decision_failed")}</Alert>}
      <div className="actions">
        <Button onClick={() => void decide(true)} isBusy={deciding === "allow"} disabled={deciding !== null}>
          {t("oauth.consent.allow", { client: request.client.name })}
        </Button>
        <Button
          variant="secondary"
          onClick={() => void decide(false)}
          isBusy={deciding === "deny"}
          disabled={deciding !== null}
        >
          {t("oauth.consent.deny")}
        </Button>
      </div>
    </div>
  );
}
