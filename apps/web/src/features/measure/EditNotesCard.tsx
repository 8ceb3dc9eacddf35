import type { MeasurementDetail } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { useUpdateMeasurement } from "./measure-api.ts";
import { Scale } from "./SaveForm.tsx";
import { parseLabels, parseTags, TagsField } from "./TagsField.tsx";

/** Feel, mood, tags and labels of a saved measurement, editable afterwards (the numbers never change here). */
export function EditNotesCard({ m }: { m: MeasurementDetail }) {
  const { t } = useTranslation();
  const update = useUpdateMeasurement(m.id);
  const [feel, setFeel] = useState<number | null>(m.feel);
  const [mood, setMood] = useState<number | null>(m.mood);
  const [tagText, setTagText] = useState(m.tags.join(", "));
  const [labelText, setLabelText] = useState(m.labels.join(", "));

  const save = (event: FormEvent) => {
    event.preventDefault();
    update.mutate(
      { feel, mood, tags: parseTags(tagText), labels: parseLabels(labelText) },
      {
        onSuccess: () => showAlert(t("measure.edit.saved")),
        onError: () => showAlert(t("measure.edit.failed"), "error"),
      },
    );
  };

  return (
    <form className="card measure-panel" onSubmit={save} aria-labelledby="edit-notes-title">
      <h2 id="edit-notes-title" className="card__title">
        {t("measure.edit.title")}
      </h2>
      <Scale legend={t("measure.save.feel")} name="edit-feel" value={feel} onChange={setFeel} />
      <Scale legend={t("measure.save.mood")} name="edit-mood" value={mood} onChange={setMood} />
      <TagsField
        label={t("measure.save.tags")}
        hint={t("measure.save.tags_hint")}
        text={tagText}
        onTextChange={setTagText}
      />
      <TagsField
        label={t("measure.save.labels")}
        hint={t("measure.save.labels_hint")}
        text={labelText}
        onTextChange={setLabelText}
      />
      <Button type="submit" isBusy={update.isPending}>
        {t("measure.edit.save")}
      </Button>
    </form>
  );
}
