import { useQueryClient } from "@tanstack/react-query";
import { ARCHIVE_API, type ArchiveImportResponse } from "@tonus/contract";
import { type FormEvent, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { describeError } from "../auth/error-text.ts";

const MESSAGES: Record<string, string> = {
  account_not_empty: "data_import.not_empty",
  file_too_large: "data_import.too_large",
  payload_too_large: "data_import.too_large",
  validation_failed: "data_import.not_archive",
};

/**
 * Restores an archive from Data export (this installation's or another's) into an account that holds no
 * data yet: the zip goes to the server as it is, which checks it and restores it in one go or not at all.
 */
export function ArchiveImport() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) {
      setMessage({ ok: false, text: t("data_import.choose_first") });
      return;
    }
    setIsBusy(true);
    setMessage(null);
    try {
      const form = new FormData();
      form.append("file", file);
      const result = await apiRequest<ArchiveImportResponse>(ARCHIVE_API.import, {
        method: "POST",
        body: form,
      });
      const count = Object.values(result.restored).reduce((sum, n) => sum + n, 0);
      setMessage({ ok: true, text: t("data_import.done", { count }) });
      await queryClient.invalidateQueries();
    } catch (error) {
      const key = error instanceof ApiError ? MESSAGES[error.code] : undefined;
      setMessage({ ok: false, text: key ? t(key) : describeError(t, error) });
    } finally {
      setIsBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="data-import-title">
      <h2 id="data-import-title" className="card__title">
        {t("data_import.title")}
      </h2>
      <p>{t("data_import.explain")}</p>
      {message && <Alert status={message.ok ? "success" : "error"}>{message.text}</Alert>}
      <form className="row" onSubmit={(e) => void submit(e)}>
        <div className="field">
          <label className="field__label" htmlFor={inputId}>
            {t("data_import.file")}
          </label>
          <input
            id={inputId}
            type="file"
            accept=".zip,application/zip"
            onChange={(e) => setFile(e.target.files?.[0] ?? null)}
          />
        </div>
        <Button type="submit" variant="secondary" isBusy={isBusy}>
          {t("data_import.submit")}
        </Button>
      </form>
    </section>
  );
}
