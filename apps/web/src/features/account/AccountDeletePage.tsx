import { useQueryClient } from "@tanstack/react-query";
import { BILLING_API } from "@tonus/contract";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { forgetEverything, logout } from "../auth/auth-api.ts";
import { ArchiveImport } from "./ArchiveImport.tsx";
import { DataExport } from "./DataExport.tsx";

export const DELETE_FINISH_REDIRECT = "/user/account-delete-finish-redirect";

/**
 * /user/account-delete: what deletion means, then the confirmation (spec §4: "Do you really want to delete
 * your account", Cancel, "Delete my account forever"). Refused while a subscription renews; any other
 * failure still logs out and leaves for the logged-out screen (spec §8).
 */
export default function AccountDeletePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [isConfirming, setIsConfirming] = useState(false);
  const [isBusy, setIsBusy] = useState(false);
  const [blocked, setBlocked] = useState(false);

  async function remove() {
    setIsBusy(true);
    try {
      await apiRequest(BILLING_API.userDelete, { method: "POST", isDataCall: false });
      // The server has replaced the session already: only the browser's side is left to clear.
      forgetEverything(queryClient);
    } catch (error) {
      if (error instanceof ApiError && error.code === "subscription_active") {
        setBlocked(true);
        setIsBusy(false);
        setIsConfirming(false);
        return;
      }
      // Spec §4: any other failure still signs out and leaves for the logged-out screen. Logout clears the
      // browser's side even when its own request fails.
      await logout(queryClient).catch(() => {});
    }
    navigate(DELETE_FINISH_REDIRECT, { replace: true });
  }

  return (
    <div className="stack">
      <p>{t("account_delete.explain")}</p>
      <Link to="/user/account-delete-info">{t("account_delete.what_is_deleted")}</Link>
      <DataExport />
      <ArchiveImport />
      {blocked && (
        <Alert status="error">
          {t("account_delete.blocked")}{" "}
          <Link to="/payment-cancel">{t("payments.subscription.cancel_link")}</Link>
        </Alert>
      )}
      {isConfirming ? (
        <section className="card" role="alertdialog" aria-labelledby="delete-confirm-title">
          <h2 id="delete-confirm-title" className="card__title">
            {t("account_delete.confirm")}
          </h2>
          <div className="row">
            <Button variant="secondary" disabled={isBusy} onClick={() => setIsConfirming(false)}>
              {t("account_delete.cancel")}
            </Button>
            <Button variant="danger" isBusy={isBusy} onClick={() => void remove()}>
              {t("account_delete.forever")}
            </Button>
          </div>
        </section>
      ) : (
        <Button variant="danger" onClick={() => setIsConfirming(true)}>
          {t("account_delete.start")}
        </Button>
      )}
    </div>
  );
}
