import { useState } from "react";
import { useTranslation } from "react-i18next";
import { LinkViewerBanner } from "../../app/layout/Banners.tsx";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { Detail } from "./MeasurementDetailPage.tsx";
import { useSharedMeasurement } from "./share-api.ts";
import "./measure.css";

const TOKEN = /^tsh_[A-Za-z0-9_-]{20,100}$/;

function tokenFromHash(): string | null {
  const token = decodeURIComponent(window.location.hash.slice(1));
  return TOKEN.test(token) ? token : null;
}

/** /share-measurement#tsh_…: one shared measurement, read-only, under the visitor banner. */
export default function SharedMeasurementPage() {
  const { t } = useTranslation();
  const [token] = useState(tokenFromHash);
  const shared = useSharedMeasurement(token);

  if (!token || (shared.isError && shared.error instanceof ApiError && shared.error.status === 404)) {
    return (
      <>
        <LinkViewerBanner />
        <Alert status="info">{t("measure.shared.unavailable")}</Alert>
      </>
    );
  }
  if (shared.isPending) return <LoadingState />;
  if (shared.isError) {
    return (
      <Alert status="error">
        <p>{t("measure.detail.load_failed")}</p>
        <Button variant="secondary" onClick={() => void shared.refetch()}>
          {t("common.retry")}
        </Button>
      </Alert>
    );
  }
  return (
    <>
      <LinkViewerBanner />
      <Detail m={shared.data} mode="shared" />
    </>
  );
}
