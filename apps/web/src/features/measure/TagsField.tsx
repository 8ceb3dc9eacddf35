import { MEASUREMENT_LIMITS } from "@tonus/contract";
import { type KeyboardEvent, useId } from "react";
import { useTranslation } from "react-i18next";

/** Splits typed tags on commas, trims them and drops duplicates and empties. */
export function parseTags(text: string, existing: readonly string[] = []): string[] {
  return parseList(text, existing, MEASUREMENT_LIMITS.maxTags);
}

/** Labels (the person's own notes on a measurement) are typed like tags: comma-separated. */
export function parseLabels(text: string): string[] {
  return parseList(text, [], MEASUREMENT_LIMITS.maxLabels);
}

function parseList(text: string, existing: readonly string[], max: number): string[] {
  const items = [...existing];
  for (const part of text.split(",")) {
    // Control characters cannot be stored (the contract refuses them); drop them rather than fail.
    const item = part
      .replace(/\p{Cc}/gu, "")
      .trim()
      .slice(0, MEASUREMENT_LIMITS.tagMaxLength);
    if (item !== "" && !items.includes(item)) items.push(item);
  }
  return items.slice(0, max);
}

type Chips = {
  /** Tags already taken from the text, shown as removable chips. */
  tags: readonly string[];
  /** Enter or a comma moves the typed text into the chips. */
  onAdd: () => void;
  onRemove: (tag: string) => void;
};

/**
 * The one tags input of the measure screens: comma-separated text with its hint (the save form, the
 * notes editor, the history filter; labels too), optionally with the tags added so far as removable chips.
 */
export function TagsField({
  label,
  hint,
  text,
  onTextChange,
  chips,
}: {
  label: string;
  hint: string;
  text: string;
  onTextChange: (text: string) => void;
  chips?: Chips;
}) {
  const { t } = useTranslation();
  const id = useId();
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (!chips || (event.key !== "Enter" && event.key !== ",")) return;
    event.preventDefault();
    chips.onAdd();
  };
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className="field__input"
        value={text}
        onChange={(event) => onTextChange(event.target.value)}
        onKeyDown={onKeyDown}
        aria-describedby={`${id}-hint`}
        maxLength={200}
      />
      <div id={`${id}-hint`} className="field__hint">
        {hint}
      </div>
      {chips && chips.tags.length > 0 && (
        <ul className="measure-tags">
          {chips.tags.map((tag) => (
            <li key={tag}>
              {tag}{" "}
              <button
                type="button"
                className="measure-tags__remove"
                aria-label={t("measure.save.remove_tag", { tag })}
                onClick={() => chips.onRemove(tag)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
