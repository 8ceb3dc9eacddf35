import { useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { logout } from "../../features/auth/auth-api.ts";
import { useAuth } from "../../features/auth/use-auth.ts";
import { useProfile } from "../../features/profile/use-profile.ts";

export function FailedPaymentBanner() {
  const { t } = useTranslation();
  const profile = useProfile();
  if (profile.data?.billing_status !== "failed") return null;
  return (
    <div className="banner banner--warning" role="alert">
      {t("billing.failed_payment")}
    </div>
  );
}

/** Spec §2: invites a share-link viewer to try the product; clicking ends the token session first. */
export function ShareBanner() {
  const { t } = useTranslation();
  const auth = useAuth();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (auth.userType !== "share") return null;
  const onTry = async () => {
    await logout(queryClient).catch(() => undefined);
    await navigate("/auth/registration/");
  };
  return (
    <div className="banner banner--share">
      <span>{t("share.banner.text")} </span>
      <button type="button" className="banner__button" onClick={() => void onTry()}>
        {t("share.banner.action")}
      </button>
    </div>
  );
}

/** For pages opened through a share link (no session): says whose view this is and invites to sign up. */
export function LinkViewerBanner() {
  const { t } = useTranslation();
  return (
    <div className="banner banner--share no-print">
      <span>{t("share.banner.text")} </span>
      <Link className="banner__button" to="/auth/registration/">
        {t("share.banner.action")}
      </Link>
    </div>
  );
}
