import { useTranslation } from "react-i18next";
import { ApiError } from "../api/client.ts";
import { Alert } from "../ui/Alert.tsx";

/**
 * Whether a share viewer has nothing to show: no token in the address, or the server's 404 (unknown,
 * revoked and deleted links all answer the same).
 */
export function isLinkUnavailable(token: string | null, error: unknown): boolean {
  return token === null || (error instanceof ApiError && error.status === 404);
}

/** What a visitor sees (under the visitor banner) for a link that does not work: one plain sentence. */
export function LinkUnavailable() {
  const { t } = useTranslation();
  return <Alert status="info">{t("share.unavailable")}</Alert>;
}
