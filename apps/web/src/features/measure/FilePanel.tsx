import { analyzeRr, type ParsedRrFile, parseRrFile } from "@tonus/hrv";
import { type ChangeEvent, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { type CapturedRr, formatClock, nowIso } from "./captured.ts";
import { cleanSeries } from "./measure-api.ts";
import { Tachogram } from "./Tachogram.tsx";

/** Files larger than this are not RR exports (an hour of RR is about 40 KB). */
const MAX_FILE_BYTES = 2_000_000;
const MIN_INTERVALS = 20;
const SHOWN_ISSUES = 5;

type Preview = { fileName: string; parsed: ParsedRrFile; rrMs: number[]; rrBreaks: number[] };

/** Reads the text of a picked file (File.text where present, FileReader otherwise). */
function readText(file: File): Promise<string> {
  if (typeof file.text === "function") return file.text();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result ?? ""));
    reader.onerror = () => reject(reader.error);
    reader.readAsText(file);
  });
}

/** An RR file in any layout packages/hrv reads, with a preview before it is saved. */
export function FilePanel({
  onComplete,
  onCancel,
}: {
  onComplete: (c: CapturedRr) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const inputId = useId();
  const [preview, setPreview] = useState<Preview | null>(null);
  const [error, setError] = useState<string | null>(null);

  const onFile = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    setPreview(null);
    setError(null);
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) {
      setError(t("measure.file.too_large"));
      return;
    }
    try {
      const parsed = parseRrFile(await readText(file));
      setPreview({ fileName: file.name, parsed, ...cleanSeries(parsed.rrMs) });
    } catch {
      setError(t("measure.file.unreadable"));
    }
  };

  return (
    <section className="card measure-panel" aria-labelledby="file-title">
      <h2 id="file-title" className="card__title">
        {t("measure.file.title")}
      </h2>
      <p>{t("measure.file.intro")}</p>
      <div className="field">
        <label className="field__label" htmlFor={inputId}>
          {t("measure.file.pick")}
        </label>
        <input id={inputId} type="file" accept=".txt,.csv,.tsv,.json,text/plain,text/csv" onChange={onFile} />
      </div>
      {error && <Alert status="error">{error}</Alert>}
      {preview && <FilePreview preview={preview} />}
      <div className="measure-actions">
        {preview && preview.rrMs.length >= MIN_INTERVALS && (
          <Button
            onClick={() =>
              onComplete({
                rrMs: preview.rrMs,
                rrBreaks: preview.rrBreaks,
                source: "file",
                device: null,
                startedAt: nowIso(),
              })
            }
          >
            {t("measure.file.use")}
          </Button>
        )}
        <Button variant="ghost" onClick={onCancel}>
          {t("measure.back")}
        </Button>
      </div>
    </section>
  );
}

function FilePreview({ preview }: { preview: Preview }) {
  const { t } = useTranslation();
  const { parsed, rrMs, rrBreaks } = preview;
  const issues = parsed.issues.slice(0, SHOWN_ISSUES);
  if (rrMs.length < MIN_INTERVALS) {
    return (
      <Alert status="error">
        <p>{t("measure.file.too_few", { count: rrMs.length, minimum: MIN_INTERVALS })}</p>
        <IssueList issues={issues} />
      </Alert>
    );
  }
  const analysis = analyzeRr(rrMs, { breaks: rrBreaks });
  const timeDomain = analysis.raw?.timeDomain;
  const totalMs = rrMs.reduce((sum, rr) => sum + rr, 0);
  return (
    <div className="measure-preview" data-testid="file-preview">
      <h3>{t("measure.file.preview_title", { name: preview.fileName })}</h3>
      <dl className="measure-facts">
        <div>
          <dt>{t("measure.file.format")}</dt>
          <dd>{parsed.format ? t(`measure.file.formats.${parsed.format}`) : "—"}</dd>
        </div>
        <div>
          <dt>{t("measure.file.intervals")}</dt>
          <dd>{t("measure.live.intervals_count", { count: rrMs.length })}</dd>
        </div>
        <div>
          <dt>{t("measure.file.duration")}</dt>
          <dd>{formatClock(totalMs)}</dd>
        </div>
        {timeDomain && (
          <div>
            <dt>{t("measure.live.heart_rate")}</dt>
            <dd>{t("measure.units.bpm", { value: Math.round(timeDomain.hrFromMeanRrBpm) })}</dd>
          </div>
        )}
      </dl>
      <Tachogram rrMs={rrMs} corrected={[]} breaks={rrBreaks} />
      {issues.length > 0 && <IssueList issues={issues} />}
    </div>
  );
}

function IssueList({ issues }: { issues: ParsedRrFile["issues"] }) {
  const { t } = useTranslation();
  if (issues.length === 0) return null;
  return (
    <ul className="measure-issues">
      {issues.map((issue, index) => (
        <li key={`${issue.code}-${issue.line ?? index}`}>
          {t(`measure.file.issues.${issue.code}`, {
            line: issue.line,
            text: issue.text,
            count: issue.count ?? 0,
          })}
        </li>
      ))}
    </ul>
  );
}
