import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { withQuery } from "../../app/access.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { logout } from "./auth-api.ts";
import { getSafeDestination } from "./destination.ts";
import { describeError } from "./error-text.ts";

export default function LogoutPage() {
  const { t } = useTranslation();
  const { search } = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: logging out happens once, on arrival
  useEffect(() => {
    const destination = getSafeDestination(search);
    logout(queryClient)
      .then(() => navigate(withQuery("/auth/signin", { destination }), { replace: true }))
      .catch((error: unknown) => setFailure(describeError(t, error)));
  }, []);

  if (failure) {
    return (
      <div className="stack">
        <Alert status="error">{failure}</Alert>
        <Button onClick={() => window.location.reload()}>{t("common.retry")}</Button>
      </div>
    );
  }
  return <LoadingState />;
}
