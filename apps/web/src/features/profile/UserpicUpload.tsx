import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { Profile, UserpicUploadResponseSchema } from "@tonus/contract";
import { API } from "@tonus/contract";
import { type DragEvent, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import type { z } from "zod";
import { apiRequest } from "../../shared/api/client.ts";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { describeError } from "../auth/error-text.ts";
import { PROFILE_QUERY_KEY } from "./use-profile.ts";
import { checkUserpicFiles, USERPIC_TYPES } from "./userpic-rules.ts";

type UploadResponse = z.infer<typeof UserpicUploadResponseSchema>;

export function UserpicUpload({ profile }: { profile: Profile }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [isDragging, setIsDragging] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append("file", file);
      return apiRequest<UploadResponse>(API.userpicUpload, { method: "POST", body: form });
    },
    onSuccess: (answer) => {
      queryClient.setQueryData<Profile>(PROFILE_QUERY_KEY, (old) =>
        old ? { ...old, userpic: answer.url } : old,
      );
      showAlert(t("profile.saved"));
    },
  });

  const takeFiles = (list: FileList | null) => {
    const files = list ? Array.from(list) : [];
    const verdict = checkUserpicFiles(files);
    if (verdict === "none") return;
    if (verdict !== "ok") {
      setProblem(t(`profile.photo.${verdict}`));
      return;
    }
    setProblem(null);
    const [file] = files;
    if (file) upload.mutate(file);
  };

  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setIsDragging(false);
    takeFiles(event.dataTransfer.files);
  };

  const initial = (profile.name || profile.email).charAt(0).toUpperCase();
  const error = problem ?? (upload.error ? describeError(t, upload.error) : null);

  return (
    <div className="actions" style={{ alignItems: "flex-start" }}>
      {profile.userpic ? (
        <img className="userpic" src={profile.userpic} alt={t("profile.photo.current")} />
      ) : (
        <div className="userpic" aria-hidden="true">
          {initial}
        </div>
      )}
      <section
        className="dropzone"
        data-active={isDragging}
        aria-label={t("profile.photo.dropzone")}
        onDragOver={(event) => {
          event.preventDefault();
          setIsDragging(true);
        }}
        onDragLeave={() => setIsDragging(false)}
        onDrop={onDrop}
        style={{ flex: 1, minWidth: 220 }}
      >
        <p>{t("profile.photo.drop_hint")}</p>
        <p className="muted">{t("profile.photo.rules")}</p>
        <label htmlFor={inputId} className="visually-hidden">
          {t("profile.photo.pick")}
        </label>
        <input
          ref={inputRef}
          id={inputId}
          type="file"
          accept={USERPIC_TYPES.join(",")}
          className="visually-hidden"
          onChange={(event) => {
            takeFiles(event.target.files);
            event.target.value = "";
          }}
        />
        <Button variant="secondary" isBusy={upload.isPending} onClick={() => inputRef.current?.click()}>
          {t("profile.photo.pick")}
        </Button>
        {error && (
          <div className="field__error" role="alert">
            {error}
          </div>
        )}
      </section>
    </div>
  );
}
