import type { BpReadingCreate } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Button } from "../../shared/ui/Button.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { type ErrorKey, emptyDraft, type ReadingDraft, validateDraft } from "./reading-form.ts";

type Submit = Omit<BpReadingCreate, "client_id" | "time_zone">;

/** Add or edit one reading; checks like the server does and shows each problem beside its field. */
export function ReadingForm({
  initial,
  submitLabel,
  isBusy,
  serverError,
  onSubmit,
  onCancel,
}: {
  initial?: ReadingDraft;
  submitLabel: string;
  isBusy: boolean;
  serverError: string | null;
  onSubmit: (reading: Submit) => Promise<boolean>;
  onCancel?: () => void;
}) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<ReadingDraft>(initial ?? emptyDraft());
  const [errors, setErrors] = useState<Partial<Record<string, ErrorKey>>>({});
  const text = (error: ErrorKey | undefined) => (error ? t(error.key, error.values ?? {}) : null);
  const set = (field: keyof ReadingDraft) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [field]: event.target.value });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = validateDraft(draft);
    setErrors(checked.errors);
    if (!checked.request) return;
    const saved = await onSubmit(checked.request);
    if (saved && !initial) setDraft(emptyDraft());
  };

  return (
    <form className="bp-form" onSubmit={(event) => void submit(event)} noValidate>
      <div className="field-row">
        <TextField
          label={t("bp.form.systolic")}
          inputMode="numeric"
          value={draft.systolic}
          onChange={set("systolic")}
          error={text(errors.systolic)}
          required
        />
        <TextField
          label={t("bp.form.diastolic")}
          inputMode="numeric"
          value={draft.diastolic}
          onChange={set("diastolic")}
          error={text(errors.diastolic)}
          required
        />
        <TextField
          label={t("bp.form.pulse")}
          inputMode="numeric"
          value={draft.pulse}
          onChange={set("pulse")}
          error={text(errors.pulse)}
        />
      </div>
      <div className="field-row">
        <TextField
          label={t("bp.form.at")}
          type="datetime-local"
          value={draft.at}
          onChange={set("at")}
          error={text(errors.at)}
          required
        />
        <Select
          label={t("bp.form.arm")}
          value={draft.arm}
          onChange={set("arm")}
          options={[
            { value: "", label: t("bp.arm.unknown") },
            { value: "left", label: t("bp.arm.left") },
            { value: "right", label: t("bp.arm.right") },
          ]}
        />
      </div>
      <TextField
        label={t("bp.form.note")}
        value={draft.note}
        onChange={set("note")}
        error={text(errors.note)}
      />
      {serverError && (
        <p className="field__error" role="alert">
          {serverError}
        </p>
      )}
      <div className="actions">
        <Button type="submit" isBusy={isBusy}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel}>
            {t("bp.cancel")}
          </Button>
        )}
      </div>
    </form>
  );
}
