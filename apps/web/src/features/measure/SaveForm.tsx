import { useQueryClient } from "@tanstack/react-query";
import type { MeasurementUpload } from "@tonus/contract";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import type { CapturedRr } from "./captured.ts";
import { detailPagePath, getUploadQueue, onUploadSettled, resolveQueueOwner } from "./measure-api.ts";
import { parseLabels, parseTags, TagsField } from "./TagsField.tsx";

const SCALE = [1, 2, 3, 4, 5] as const;

type SaveState =
  | { kind: "editing" }
  | { kind: "saving" }
  | { kind: "queued"; clientId: string }
  | { kind: "saved"; id: string }
  | { kind: "rejected" }
  /** Offline before the account was known: the measurement cannot be kept for anyone yet. */
  | { kind: "no_account" };

function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** After a recording: how the person feels, mood and tags, then save (or keep for later when offline). */
export function SaveForm({
  captured,
  onSaved,
  onDiscard,
}: {
  captured: CapturedRr;
  onSaved: (id: string) => void;
  onDiscard: () => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [feel, setFeel] = useState<number | null>(null);
  const [mood, setMood] = useState<number | null>(null);
  const [tags, setTags] = useState<string[]>([]);
  const [tagText, setTagText] = useState("");
  const [labelText, setLabelText] = useState("");
  const [state, setState] = useState<SaveState>({ kind: "editing" });
  const clientIdRef = useRef<string | null>(null);
  const onSavedRef = useRef(onSaved);
  onSavedRef.current = onSaved;

  useEffect(
    () =>
      onUploadSettled((clientId, outcome) => {
        if (clientId !== clientIdRef.current) return;
        if (outcome.kind === "sent") {
          setState({ kind: "saved", id: outcome.id });
          onSavedRef.current(outcome.id);
        } else setState({ kind: "rejected" });
      }),
    [],
  );

  const addTags = () => {
    setTags((current) => parseTags(tagText, current));
    setTagText("");
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    // One id per recording: saving again after a failure retries the same upload.
    clientIdRef.current ??= crypto.randomUUID();
    const clientId = clientIdRef.current;
    const upload: MeasurementUpload = {
      client_id: clientId,
      rr_ms: captured.rrMs,
      ...(captured.rrBreaks.length > 0 ? { rr_breaks: captured.rrBreaks } : {}),
      source: captured.source,
      device: captured.device,
      started_at: captured.startedAt,
      time_zone: localTimeZone(),
      feel,
      mood,
      tags: parseTags(tagText, tags),
      labels: parseLabels(labelText),
    };
    setState({ kind: "saving" });
    const owner = await resolveQueueOwner(queryClient);
    if (!owner) {
      setState({ kind: "no_account" });
      return;
    }
    const queue = getUploadQueue();
    await queue.enqueue(clientId, owner, upload);
    setState((current) =>
      current.kind === "saving" && queue.has(clientId) ? { kind: "queued", clientId } : current,
    );
  };

  if (state.kind === "saved") {
    return (
      <Alert status="success">
        <p>{t("measure.save.saved")}</p>
        <Link to={detailPagePath(state.id)}>{t("measure.save.open_detail")}</Link>
      </Alert>
    );
  }
  if (state.kind === "queued") {
    return (
      <Alert status="info">
        <p>{t("measure.save.queued")}</p>
      </Alert>
    );
  }

  return (
    <form className="card measure-panel" onSubmit={(event) => void save(event)} aria-labelledby="save-title">
      <h2 id="save-title" className="card__title">
        {t("measure.save.title")}
      </h2>
      <p className="muted">{t("measure.save.recorded", { count: captured.rrMs.length })}</p>
      <Scale legend={t("measure.save.feel")} name="feel" value={feel} onChange={setFeel} />
      <Scale legend={t("measure.save.mood")} name="mood" value={mood} onChange={setMood} />
      <TagsField
        label={t("measure.save.tags")}
        hint={t("measure.save.tags_hint")}
        text={tagText}
        onTextChange={setTagText}
        chips={{
          tags,
          onAdd: addTags,
          onRemove: (tag) => setTags((current) => current.filter((other) => other !== tag)),
        }}
      />
      <TagsField
        label={t("measure.save.labels")}
        hint={t("measure.save.labels_hint")}
        text={labelText}
        onTextChange={setLabelText}
      />
      {state.kind === "rejected" && <Alert status="error">{t("measure.save.rejected")}</Alert>}
      {state.kind === "no_account" && <Alert status="error">{t("measure.save.no_account")}</Alert>}
      <div className="measure-actions">
        <Button type="submit" isBusy={state.kind === "saving"}>
          {t("measure.save.submit")}
        </Button>
        <Button variant="ghost" onClick={onDiscard} disabled={state.kind === "saving"}>
          {t("measure.save.discard")}
        </Button>
      </div>
    </form>
  );
}

export function Scale({
  legend,
  name,
  value,
  onChange,
}: {
  legend: string;
  name: string;
  value: number | null;
  onChange: (value: number) => void;
}) {
  const { t } = useTranslation();
  return (
    <fieldset className="measure-scale">
      <legend>{legend}</legend>
      {SCALE.map((level) => (
        <label key={level} className="measure-scale__option">
          <input
            type="radio"
            name={name}
            value={level}
            checked={value === level}
            onChange={() => onChange(level)}
          />
          <span>{t(`measure.save.scale_${level}`)}</span>
        </label>
      ))}
    </fieldset>
  );
}
