import { MEASUREMENT_LIMITS, type MeasurementUpload } from "@tonus/contract";
import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import type { CapturedRr } from "./captured.ts";
import { detailPagePath, getUploadQueue, onUploadSettled } from "./measure-api.ts";

const SCALE = [1, 2, 3, 4, 5] as const;

type SaveState =
  | { kind: "editing" }
  | { kind: "saving" }
  | { kind: "queued"; clientId: string }
  | { kind: "saved"; id: string }
  | { kind: "rejected" };

function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** Splits typed tags on commas, trims them and drops duplicates and empties. */
export function parseTags(text: string, existing: readonly string[] = []): string[] {
  const tags = [...existing];
  for (const part of text.split(",")) {
    const tag = part.trim().slice(0, MEASUREMENT_LIMITS.tagMaxLength);
    if (tag !== "" && !tags.includes(tag)) tags.push(tag);
  }
  return tags.slice(0, MEASUREMENT_LIMITS.maxTags);
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
  const tagsId = useId();
  const [feel, setFeel] = useState<number | null>(null);
  const [mood, setMood] = useState<number | null>(null);
  const [tags, setTags] = useState<string[]>([]);
  const [tagText, setTagText] = useState("");
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

  const onTagKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "Enter" || event.key === ",") {
      event.preventDefault();
      addTags();
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    // One id per recording: saving again after a failure retries the same upload.
    clientIdRef.current ??= crypto.randomUUID();
    const clientId = clientIdRef.current;
    const upload: MeasurementUpload = {
      client_id: clientId,
      rr_ms: captured.rrMs,
      source: captured.source,
      device: captured.device,
      started_at: captured.startedAt,
      time_zone: localTimeZone(),
      feel,
      mood,
      tags: parseTags(tagText, tags),
    };
    setState({ kind: "saving" });
    const queue = getUploadQueue();
    await queue.enqueue(clientId, upload);
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
      <div className="field">
        <label className="field__label" htmlFor={tagsId}>
          {t("measure.save.tags")}
        </label>
        <input
          id={tagsId}
          className="field__input"
          value={tagText}
          onChange={(event) => setTagText(event.target.value)}
          onKeyDown={onTagKey}
          aria-describedby={`${tagsId}-hint`}
          maxLength={200}
        />
        <div id={`${tagsId}-hint`} className="field__hint">
          {t("measure.save.tags_hint")}
        </div>
        {tags.length > 0 && (
          <ul className="measure-tags">
            {tags.map((tag) => (
              <li key={tag}>
                {tag}{" "}
                <button
                  type="button"
                  className="measure-tags__remove"
                  aria-label={t("measure.save.remove_tag", { tag })}
                  onClick={() => setTags((current) => current.filter((other) => other !== tag))}
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
      {state.kind === "rejected" && <Alert status="error">{t("measure.save.rejected")}</Alert>}
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
