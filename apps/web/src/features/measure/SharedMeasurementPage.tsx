import { useTranslation } from "react-i18next";
import { LinkViewerBanner } from "../../app/layout/Banners.tsx";
import { isLinkUnavailable, LinkUnavailable } from "../../shared/share/LinkUnavailable.tsx";
import { useShareToken } from "../../shared/share/useShareToken.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { Detail } from "./MeasurementDetailPage.tsx";
import { useSharedMeasurement } from "./share-api.ts";
import "./measure.css";

/** /share-measurement#tsh_…: one shared measurement, read-only, under the visitor banner. */
export default function SharedMeasurementPage() {
  const { t } = useTranslation();
  const token = useShareToken();
  const shared = useSharedMeasurement(token);

  if (isLinkUnavailable(token, shared.error)) {
    return (
      <>
        <LinkViewerBanner />
        <LinkUnavailable />
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
