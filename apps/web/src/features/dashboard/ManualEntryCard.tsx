import {
  type ChartFlows,
  type DisplayUnit,
  displayUnitOf,
  entryUnitsOf,
  type ManualValue,
  METRICS,
  type MetricKey,
} from "@tonus/contract";
import { type FormEvent, type Ref, useEffect, useId, useMemo, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { useCreateValue, useDeleteValue, useManualValues } from "./dashboard-api.ts";
import { formatNumber, formatValue, metricLabelsOf, pick, unitLabelsOf } from "./format.ts";
import { MANUAL_METRICS, type ManualDraft, type ManualError, validateManualDraft } from "./manual-entry.ts";

const UNDO_MS = 6000;

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

/** A `datetime-local` value for an instant, in the browser's time zone. */
function toLocalInput(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * Typing values in (weight, water, sleep, steps…) in the person's units, so the dashboard is useful
 * before any gadget is connected; the latest entries with delete and undo.
 */
export function ManualEntryCard({
  flows,
  onProRequired,
  headingRef,
}: {
  flows: ChartFlows;
  onProRequired: () => void;
  /** The heading, focused when another part of the page sends the person here. */
  headingRef?: Ref<HTMLHeadingElement>;
}) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const headingId = useId();
  const metricLabels = useMemo(() => metricLabelsOf(flows), [flows]);
  const unitLabels = useMemo(() => unitLabelsOf(flows), [flows]);
  const defaultUnit = (metric: MetricKey) => displayUnitOf(metric, flows.units);
  const [draft, setDraft] = useState<ManualDraft>(() => ({
    metric: "weight",
    value: "",
    unit: defaultUnit("weight"),
    at: toLocalInput(new Date()),
  }));
  const [errors, setErrors] = useState<ManualError[]>([]);
  const create = useCreateValue();
  const recent = useManualValues(true);
  const remove = useDeleteValue();
  const [pending, setPending] = useState<ManualValue | null>(null);
  const timer = useRef<number | undefined>(undefined);

  const metricLabel = (metric: MetricKey) => {
    const text = metricLabels.get(metric);
    return text ? pick(text, language) : metric;
  };
  const unitLabel = (unit: DisplayUnit) => {
    const text = unitLabels.get(unit);
    return text ? pick(text, language) : unit;
  };
  const errorOf = (field: ManualError["field"]) => {
    const error = errors.find((e) => e.field === field);
    if (!error) return null;
    if (error.key === "range")
      return t("dashboard.manual.errors.range", {
        min: formatNumber(error.min, error.decimals, language),
        max: formatNumber(error.max, error.decimals, language),
        unit: unitLabel(draft.unit),
      });
    return t(`dashboard.manual.errors.${error.field}_${error.key}`);
  };

  // A deletion waits a few seconds for Undo; leaving the page carries it out at once.
  const commitDelete = useRef<() => void>(() => {});
  commitDelete.current = () => {
    if (!pending) return;
    window.clearTimeout(timer.current);
    const value = pending;
    setPending(null);
    remove.mutate(value.id, {
      onError: (failure) => {
        if (failure instanceof ApiError && failure.code === "pro_required") onProRequired();
        else showAlert(t("dashboard.manual.delete_failed"), "error");
      },
    });
  };
  useEffect(() => () => commitDelete.current(), []);

  const askDelete = (value: ManualValue) => {
    commitDelete.current();
    setPending(value);
    timer.current = window.setTimeout(() => commitDelete.current(), UNDO_MS);
  };
  const undoDelete = () => {
    window.clearTimeout(timer.current);
    setPending(null);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { errors: found, request } = validateManualDraft(draft, new Date(), crypto.randomUUID());
    setErrors(found);
    if (!request) return;
    create.mutate(request, {
      onSuccess: () => {
        showAlert(t("dashboard.manual.saved"));
        setDraft((d) => ({ ...d, value: "" }));
      },
      onError: (failure) => {
        if (failure instanceof ApiError && failure.code === "pro_required") onProRequired();
      },
    });
  };

  const list = (recent.data?.results ?? []).filter((v) => v.id !== pending?.id);
  const serverError =
    create.isError && !(create.error instanceof ApiError && create.error.code === "pro_required")
      ? t("dashboard.manual.save_failed")
      : null;
  const dateTime = new Intl.DateTimeFormat(language, { dateStyle: "medium", timeStyle: "short" });

  return (
    <section className="card manual-entry" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1} className="card__title">
        {t("dashboard.manual.title")}
      </h2>
      <p className="muted">{t("dashboard.manual.intro")}</p>
      <form className="manual-entry__form" noValidate onSubmit={submit}>
        <Select
          label={t("dashboard.manual.metric")}
          value={draft.metric}
          options={MANUAL_METRICS.map((metric) => ({ value: metric, label: metricLabel(metric) }))}
          onChange={(event) => {
            const metric = event.target.value as MetricKey;
            setDraft({ ...draft, metric, unit: defaultUnit(metric) });
            setErrors([]);
          }}
        />
        <div className="field-row">
          <TextField
            label={t("dashboard.manual.value")}
            inputMode="decimal"
            autoComplete="off"
            value={draft.value}
            error={errorOf("value")}
            onChange={(event) => setDraft({ ...draft, value: event.target.value })}
          />
          {entryUnitsOf(draft.metric).length > 1 ? (
            <Select
              label={t("dashboard.manual.unit")}
              value={draft.unit}
              options={entryUnitsOf(draft.metric).map((unit) => ({ value: unit, label: unitLabel(unit) }))}
              onChange={(event) => setDraft({ ...draft, unit: event.target.value as DisplayUnit })}
            />
          ) : (
            <div className="field">
              <span className="field__label">{t("dashboard.manual.unit")}</span>
              <span className="manual-entry__unit">
                {unitLabel(draft.unit) || t("dashboard.manual.no_unit")}
              </span>
            </div>
          )}
        </div>
        <TextField
          label={t("dashboard.manual.at")}
          type="datetime-local"
          value={draft.at}
          error={errorOf("at")}
          onChange={(event) => setDraft({ ...draft, at: event.target.value })}
        />
        {serverError && <Alert status="error">{serverError}</Alert>}
        <Button type="submit" isBusy={create.isPending}>
          {t("dashboard.manual.submit")}
        </Button>
      </form>

      {pending && (
        <div className="undo-bar" role="status">
          <span>{t("dashboard.manual.deleted")}</span>
          <Button variant="secondary" onClick={undoDelete}>
            {t("dashboard.undo")}
          </Button>
        </div>
      )}

      <h3>{t("dashboard.manual.recent")}</h3>
      {recent.isPending ? null : recent.isError ? (
        <Alert status="error">{t("dashboard.manual.load_failed")}</Alert>
      ) : list.length === 0 ? (
        <p className="empty-state">{t("dashboard.manual.none")}</p>
      ) : (
        <ul className="manual-entry__list">
          {list.map((value) => {
            const text = `${metricLabel(value.metric)}: ${formatValue(value.value, METRICS[value.metric].decimals, unitLabel(value.unit), language)}`;
            return (
              <li key={value.id}>
                <span>
                  {text} <span className="muted">{dateTime.format(new Date(value.at))}</span>
                </span>
                <Button
                  variant="ghost"
                  aria-label={t("dashboard.manual.delete_named", { value: text })}
                  onClick={() => askDelete(value)}
                >
                  {t("dashboard.manual.delete")}
                </Button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
