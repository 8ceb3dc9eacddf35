import { type CsvMapping, CsvMetricSchema, type CsvPreview, type Import } from "@tonus/contract";
import { useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Select } from "../../shared/ui/Select.tsx";
import { useSetMapping } from "./sources-api.ts";

const NONE = "";

/** The mapping the preview suggests, as one choice per column ("" = not imported). */
export function initialChoices(preview: CsvPreview): Record<string, string> {
  const choices: Record<string, string> = {};
  for (const h of preview.header) choices[h] = NONE;
  for (const c of preview.suggested?.columns ?? []) choices[c.column] = c.metric;
  return choices;
}

/**
 * The mapping to send: the time column, its date order and every column given a measure. Units are the
 * server's to read from each header for the measure chosen (a "Weight (lb)" column in pounds, "Distance
 * (km)" chosen as energy in energy's usual unit), so none is sent.
 */
export function buildMapping(
  preview: CsvPreview,
  time: string,
  order: string,
  choices: Record<string, string>,
): CsvMapping | null {
  const columns = preview.header.flatMap((h) => {
    const metric = CsvMetricSchema.safeParse(choices[h]);
    return h === time || !metric.success ? [] : [{ column: h, metric: metric.data }];
  });
  if (!time || columns.length === 0) return null;
  return {
    time,
    ...(order === "iso" || order === "dmy" || order === "mdy" ? { time_format: order } : {}),
    columns,
  };
}

/** A generic CSV's first rows with a measure to choose per column, then the import starts. */
export function CsvMappingForm({
  item,
  preview,
  onCancel,
}: {
  item: Import;
  preview: CsvPreview;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const captionId = useId();
  const tableLabelId = useId();
  const [time, setTime] = useState(preview.suggested?.time ?? preview.header[0] ?? "");
  const [order, setOrder] = useState(
    preview.suggested?.time_format ?? (preview.date_order === "ambiguous" ? "" : "iso"),
  );
  const [choices, setChoices] = useState(() => initialChoices(preview));
  const setMapping = useSetMapping();
  const mapping = buildMapping(preview, time, order, choices);
  const hintId = useId();
  // Why "Start the import" cannot be pressed yet.
  const missing = !mapping ? "choose_column" : order === "" ? "choose_order" : null;
  const metricOptions = [
    { value: NONE, label: t("sources.mapping.skip") },
    ...CsvMetricSchema.options.map((m) => ({ value: m, label: t(`sources.metrics.${m}`) })),
  ];
  return (
    <section className="csv-mapping" aria-labelledby={captionId}>
      <h3 id={captionId}>{t("sources.mapping.title", { name: item.file_name })}</h3>
      <p>{t("sources.mapping.intro")}</p>
      {preview.date_order === "ambiguous" && <Alert status="info">{t("sources.mapping.ambiguous")}</Alert>}
      <div className="csv-mapping__controls">
        <Select
          label={t("sources.mapping.time_column")}
          value={time}
          onChange={(e) => setTime(e.target.value)}
          options={preview.header.map((h) => ({ value: h, label: h }))}
        />
        <Select
          label={t("sources.mapping.date_order")}
          value={order}
          onChange={(e) => setOrder(e.target.value)}
          options={[
            { value: "", label: t("sources.mapping.order_choose") },
            { value: "iso", label: t("sources.mapping.order_iso") },
            { value: "dmy", label: t("sources.mapping.order_dmy") },
            { value: "mdy", label: t("sources.mapping.order_mdy") },
          ]}
        />
      </div>
      {/* Above the table, not its caption: a caption scrolls sideways with a wide table and is cut off. */}
      <p id={tableLabelId}>{t("sources.mapping.caption")}</p>
      <div className="csv-mapping__table">
        <table aria-labelledby={tableLabelId}>
          <thead>
            <tr>
              {preview.header.map((h) => (
                <th key={h} scope="col">
                  {h === time ? (
                    <span>
                      {h} <span className="muted">({t("sources.mapping.is_time")})</span>
                    </span>
                  ) : (
                    <Select
                      label={h}
                      value={choices[h] ?? NONE}
                      onChange={(e) => setChoices({ ...choices, [h]: e.target.value })}
                      options={metricOptions}
                    />
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {preview.rows.slice(0, 5).map((row, r) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: preview rows are fixed
              <tr key={r}>
                {preview.header.map((h, c) => (
                  <td key={h}>{row[c] ?? ""}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {setMapping.isError && <Alert status="error">{t("sources.mapping.refused")}</Alert>}
      {missing && (
        <p id={hintId} className="muted">
          {t(`sources.mapping.${missing}`)}
        </p>
      )}
      <div className="actions">
        <Button
          disabled={missing !== null}
          aria-describedby={missing ? hintId : undefined}
          isBusy={setMapping.isPending}
          keepsFocusWhenBusy
          onClick={() => mapping && setMapping.mutate({ id: item.id, mapping })}
        >
          {t("sources.mapping.start")}
        </Button>
        <Button variant="secondary" onClick={onCancel}>
          {t("sources.import.cancel")}
        </Button>
      </div>
    </section>
  );
}
