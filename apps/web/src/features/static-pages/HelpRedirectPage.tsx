import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { useConfig } from "../../shared/api/use-config.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { SmartLink } from "../../shared/ui/SmartLink.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";

/** The help centre is the operator's configured address (trusted config, not user input). */
function isWebAddress(url: string): boolean {
  try {
    const { protocol } = new URL(url);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

export default function HelpRedirectPage() {
  const { t } = useTranslation();
  const config = useConfig();
  const url = config.data?.help_center_url ?? "";
  const canOpen = isWebAddress(url);

  useEffect(() => {
    if (canOpen) window.location.replace(url);
  }, [canOpen, url]);

  if (config.isPending) return <LoadingState />;
  if (!canOpen) return <Alert status="error">{t("help.unavailable")}</Alert>;
  return (
    <p>
      {t("help.opening")} <SmartLink href={url}>{t("help.open_link")}</SmartLink>
    </p>
  );
}
