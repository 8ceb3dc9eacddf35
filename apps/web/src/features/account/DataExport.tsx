import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ARCHIVE_API, type ArchiveStatus } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";

const ARCHIVE_KEY = ["account", "archive"] as const;

/** Spec §4 Data archive: request a new archive, see it being packed, download it while it is ready. */
export function DataExport() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const queryClient = useQueryClient();
  const archive = useQuery({
    queryKey: ARCHIVE_KEY,
    queryFn: () => apiRequest<ArchiveStatus>(ARCHIVE_API.archive),
    refetchInterval: (query) => (query.state.data?.status === "packing" ? 10_000 : false),
  });
  const request = useMutation({
    mutationFn: () => apiRequest<ArchiveStatus>(ARCHIVE_API.archive, { method: "POST" }),
    onSuccess: (data) => queryClient.setQueryData(ARCHIVE_KEY, data),
  });
  const status = archive.data?.status ?? "none";
  const failed = status === "failed" || request.isError;
  const when = (iso: string | null) =>
    iso
      ? new Intl.DateTimeFormat(language === "ru" ? "ru-RU" : "en-US", {
          dateStyle: "long",
          timeStyle: "short",
        }).format(new Date(iso))
      : "";
  return (
    <section className="card" aria-labelledby="data-export-title">
      <h2 id="data-export-title" className="card__title">
        {t("data_export.title")}
      </h2>
      <p>{t("data_export.explain")}</p>
      {failed && <Alert status="error">{t("data_export.failed")}</Alert>}
      {status === "packing" && <p aria-live="polite">{t("data_export.packing")}</p>}
      {status === "ready" && archive.data?.download_url && (
        <p>
          <a className="btn btn--primary" href={archive.data.download_url} download>
            {t("data_export.download")}
          </a>{" "}
          <span className="muted">{t("data_export.until", { date: when(archive.data.expires_at) })}</span>
        </p>
      )}
      {status !== "packing" && (
        <Button variant="secondary" isBusy={request.isPending} onClick={() => request.mutate()}>
          {t("data_export.request")}
        </Button>
      )}
    </section>
  );
}
