import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { useLocation, useNavigate } from "react-router";
import { withQuery } from "../../app/access.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { getUploadQueue, resolveQueueOwner } from "../measure/measure-api.ts";
import { logout } from "./auth-api.ts";
import { getSafeDestination } from "./destination.ts";
import { describeError } from "./error-text.ts";

type State = { kind: "working" } | { kind: "unsent"; count: number } | { kind: "failed"; message: string };

/**
 * /user/logout. Logging out clears this device (RELIABILITY H5), the offline queue included, so
 * measurements still waiting to be uploaded are tried once more first; any that are still waiting make
 * the page ask before they are deleted.
 */
export default function LogoutPage() {
  const { t } = useTranslation();
  const { search } = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>({ kind: "working" });

  const leave = () => {
    setState({ kind: "working" });
    const destination = getSafeDestination(search);
    logout(queryClient)
      .then(() => navigate(withQuery("/auth/signin", { destination }), { replace: true }))
      .catch((error: unknown) => setState({ kind: "failed", message: describeError(t, error) }));
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: logging out happens once, on arrival
  useEffect(() => {
    void (async () => {
      // Opened directly, the page may come before the app shell knows whose queue this is.
      await resolveQueueOwner(queryClient);
      const queue = getUploadQueue();
      if (queue.list().length > 0) await queue.flush().catch(() => undefined);
      const unsent = queue.list().length;
      if (unsent > 0) setState({ kind: "unsent", count: unsent });
      else leave();
    })();
  }, []);

  if (state.kind === "failed") {
    return (
      <div className="stack">
        <Alert status="error">{state.message}</Alert>
        <Button onClick={() => window.location.reload()}>{t("common.retry")}</Button>
      </div>
    );
  }
  if (state.kind === "unsent") {
    return (
      <div className="stack">
        <Alert status="error">
          <p>{t("auth.logout.unsent", { count: state.count })}</p>
        </Alert>
        <div className="actions">
          <Button onClick={() => void navigate("/measure", { replace: true })}>
            {t("auth.logout.stay")}
          </Button>
          <Button variant="secondary" onClick={leave}>
            {t("auth.logout.anyway")}
          </Button>
        </div>
      </div>
    );
  }
  return <LoadingState />;
}
