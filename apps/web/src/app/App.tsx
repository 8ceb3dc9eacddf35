import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { createBrowserRouter, Outlet, RouterProvider } from "react-router";
import { Analytics } from "../features/analytics/Analytics.tsx";
import { forgetEverything } from "../features/auth/auth-api.ts";
import { ChatWidget } from "../features/chat/ChatWidget.tsx";
import { UploadQueueSync } from "../features/measure/UploadQueueSync.tsx";
import { getCurrentLanguage } from "../i18n/index.ts";
import { ApiError, configureApiClient } from "../shared/api/client.ts";
import { useConfig } from "../shared/api/use-config.ts";
import { TransientAlert } from "../shared/ui/TransientAlert.tsx";
import { buildSignInPath } from "./access.ts";
import { setMaintenance, useMaintenance } from "./maintenance-store.ts";
import { RouteError } from "./RouteError.tsx";
import { RouteGate } from "./RouteGate.tsx";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      refetchOnWindowFocus: false,
      // Client errors will not change on retry; network and server hiccups may.
      retry: (count, error) =>
        count < 2 && !(error instanceof ApiError && error.status > 0 && error.status < 500),
    },
  },
});

function Root() {
  const isMaintenance = useMaintenance();
  const config = useConfig();
  if (isMaintenance || config.data?.maintenance) return <MaintenanceScreen />;
  return (
    <>
      <RouteGate />
      <TransientAlert />
      <ChatWidget />
      <UploadQueueSync />
      <Analytics />
    </>
  );
}

function MaintenanceScreen() {
  const { t } = useTranslation();
  return (
    <main id="main" className="main main--simple">
      <div className="simple-panel card" role="alert">
        <h1>{t("errors.maintenance.title")}</h1>
        <p>{t("errors.maintenance.text")}</p>
      </div>
    </main>
  );
}

const router = createBrowserRouter([
  {
    path: "*",
    element: <Outlet />,
    errorElement: <RouteError />,
    children: [{ path: "*", element: <Root /> }],
  },
]);

const AUTH_PAGES = ["/auth/", "/user/login", "/user/logout"];

configureApiClient({
  getLanguage: getCurrentLanguage,
  handlers: {
    onNotAuthenticated: () => {
      const { pathname, search } = window.location;
      if (AUTH_PAGES.some((prefix) => pathname.startsWith(prefix))) return;
      // The session ended without a logout: measurements waiting to be uploaded stay for their account.
      forgetEverything(queryClient, { keepUploadQueue: true });
      void router.navigate(buildSignInPath(pathname, search), { replace: true });
    },
    onServerFailure: () => {
      if (window.location.pathname !== "/500/") void router.navigate("/500/", { replace: true });
    },
    onMaintenance: () => setMaintenance(true),
  },
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
