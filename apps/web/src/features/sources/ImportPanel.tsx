import { useQueryClient } from "@tanstack/react-query";
import type { FileImporter, Import, SourceDetail } from "@tonus/contract";
import { useId, useLayoutEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { useFocusStaysInside } from "../../shared/ui/focus.ts";
import { CsvMappingForm } from "./CsvMappingForm.tsx";
import { useFileDrop } from "./file-drop.ts";
import { ImportHistory } from "./ImportHistory.tsx";
import { ImportReportView, reportTitle } from "./ImportReportView.tsx";
import { formatBytes, fraction, type ProgressSample, timeLeftS } from "./import-format.ts";
import { useSourceName } from "./SourceBits.tsx";
import { sourcePath } from "./source-paths.ts";
import {
  isActive,
  SOURCES_QUERY_KEY,
  type UploadProgress,
  uploadImport,
  useCancelImport,
  useImport,
  useSources,
} from "./sources-api.ts";

/** The unfinished imports a 429 `too_many_imports` names, so the person can find them. */
type Unfinished = { id: string; source_slug: string; file_name: string; status: string };

function unfinishedOf(error: unknown): Unfinished[] {
  if (!(error instanceof ApiError) || error.code !== "too_many_imports") return [];
  const list = (error.body as { unfinished?: unknown } | null)?.unfinished;
  return Array.isArray(list) ? (list as Unfinished[]) : [];
}

/** Where each unfinished import waits: its entry's page, with what it is doing. */
function UnfinishedList({ items }: { items: Unfinished[] }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const sources = useSources();
  const nameOf = useSourceName();
  const entry = (slug: string) => sources.data?.results.find((s) => s.slug === slug);
  return (
    <ul className="import-panel__unfinished">
      {items.map((u) => {
        const found = entry(u.source_slug);
        return (
          <li key={u.id}>
            {u.file_name}:{" "}
            <Link to={sourcePath(pathname, u.source_slug)}>{found ? nameOf(found) : u.source_slug}</Link> (
            {t(`sources.state.${u.status === "needs_mapping" ? "needs_mapping" : "importing"}`)})
          </li>
        );
      })}
    </ul>
  );
}

/** The text for a refused upload: the reason a file was refused, else the error code's. */
function useUploadError() {
  const { t } = useTranslation();
  return (error: unknown): string => {
    if (!(error instanceof ApiError)) return t("errors.codes.unknown");
    const reason = (error.body as { reason?: string } | null)?.reason;
    if (error.code === "import_rejected" && reason) return t(`sources.reasons.${reason}`);
    return t(`errors.codes.${error.code}`, { defaultValue: t("errors.codes.unknown") });
  };
}

const pickInView = (panel: HTMLElement) =>
  panel.querySelector<HTMLElement>("[data-autofocus]") ?? panel.querySelector<HTMLElement>("h3");

/** Upload with a progress bar and cancel, then the import's own progress, mapping step and report. */
export function ImportPanel({ source, importer }: { source: SourceDetail; importer: FileImporter }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const inputId = useId();
  const hintId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [uploading, setUploading] = useState<UploadProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [stopped, setStopped] = useState<string | null>(null);
  const [unfinished, setUnfinished] = useState<Unfinished[]>([]);
  const [importId, setImportId] = useState<string | null>(source.last_import?.id ?? null);
  // A new key empties the file input once its file has been sent.
  const [inputKey, setInputKey] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  // Said when a drop was not taken as it came: several files (which one was taken) or a folder.
  const [dropNote, setDropNote] = useState("");
  const abort = useRef<AbortController | null>(null);
  const current = useImport(importId, source.last_import);
  const cancel = useCancelImport();
  const errorText = useUploadError();
  const units = t("sources.bytes_units", { returnObjects: true }) as string[];
  const busy = uploading !== null || isActive(current.data);

  const choose = (chosen: File | null) => {
    setFile(chosen);
    setError(null);
    setStopped(null);
    setDropNote("");
  };
  const drop = useFileDrop(
    input,
    !busy,
    (dropped, count) => {
      choose(dropped);
      if (count > 1) setDropNote(t("sources.upload.one_at_a_time", { name: dropped.name }));
    },
    (folder) => setDropNote(t("sources.upload.folder", { name: folder })),
  );

  // What the panel shows changes (an upload starting or refused, the import waiting for its columns,
  // running, ending) by replacing the control that had the focus: the new view takes it, at its
  // `[data-autofocus]` element or else its first heading.
  const panel = useRef<HTMLDivElement>(null);
  const focusMoves = useFocusStaysInside(panel, pickInView);

  // When an import ends while the page watches it, the source's state (and the list's) changes with it,
  // and its report's title is said: by the focus moving to it when the focus went with the progress,
  // else by the live region, once either way (a layout effect: it runs before the focus is moved).
  const running = isActive(current.data);
  const wasRunning = useRef(running);
  const [announcement, setAnnouncement] = useState("");
  useLayoutEffect(() => {
    if (wasRunning.current && !running) {
      void queryClient.invalidateQueries({ queryKey: SOURCES_QUERY_KEY });
      if (current.data && !focusMoves()) setAnnouncement(reportTitle(current.data, t));
    }
    wasRunning.current = running;
  }, [running, queryClient, current.data, t, focusMoves]);

  // A refused or stopped upload's message takes the focus from the Cancel it replaced: it is then read
  // by the focus alone, not also as a live region (decided before the focus moves, and before paint).
  const [saidByFocus, setSaidByFocus] = useState(false);
  const outcome = error ?? stopped;
  useLayoutEffect(() => {
    if (outcome) setSaidByFocus(focusMoves());
  }, [outcome, focusMoves]);

  const start = async () => {
    if (!file) return;
    setError(null);
    setStopped(null);
    setAnnouncement("");
    setDropNote("");
    abort.current = new AbortController();
    setUploading({ loaded: 0, total: file.size });
    try {
      const created = await uploadImport({
        file,
        source: source.slug,
        language: i18n.language,
        onProgress: setUploading,
        signal: abort.current.signal,
      });
      queryClient.setQueryData([...SOURCES_QUERY_KEY, "import", created.id], created);
      setImportId(created.id);
      setFile(null);
      setInputKey((k) => k + 1);
      await queryClient.invalidateQueries({ queryKey: [...SOURCES_QUERY_KEY, "list"] });
    } catch (e) {
      if (e instanceof DOMException && e.name === "AbortError")
        setStopped(t("sources.upload.stopped", { name: file.name }));
      else {
        setError(t("sources.upload.refused", { name: file.name, reason: errorText(e) }));
        setUnfinished(unfinishedOf(e));
      }
    } finally {
      setUploading(null);
      abort.current = null;
    }
  };

  return (
    <div
      className={drop.over ? "import-panel import-panel--drop" : "import-panel"}
      ref={panel}
      {...drop.handlers}
    >
      <div className="field">
        <label className="field__label" htmlFor={inputId}>
          {t("sources.upload.choose")}
        </label>
        <input
          key={inputKey}
          ref={input}
          id={inputId}
          aria-describedby={hintId}
          className="field__input"
          type="file"
          disabled={busy}
          onChange={(e) => choose(e.target.files?.[0] ?? null)}
        />
        <div id={hintId} className="field__hint">
          {t(`sources.upload.formats.${importer}`)}
        </div>
        <p className="field__hint import-panel__drop-hint">{t("sources.upload.drop_hint")}</p>
        <p className="field__hint import-panel__drop-note" role="status">
          {dropNote}
        </p>
      </div>
      {uploading ? (
        <UploadBar progress={uploading} units={units} onCancel={() => abort.current?.abort()} />
      ) : (
        <Button disabled={!file || busy} onClick={start}>
          {t("sources.upload.start")}
        </Button>
      )}
      {/* What became of the file just sent takes the focus from the button that sent or stopped it. */}
      {outcome && !uploading && (
        <div data-autofocus tabIndex={-1}>
          <Alert status={error ? "error" : "info"} announced={!saidByFocus}>
            {outcome}
          </Alert>
          {error && unfinished.length > 0 && <UnfinishedList items={unfinished} />}
        </div>
      )}
      <p className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {/* A file being sent, refused or stopped replaces the earlier report: beside it, it would read as its. */}
      {current.data && !error && !stopped && !uploading && (
        <ImportView
          item={current.data}
          units={units}
          onCancel={() => cancel.mutate(current.data.id)}
          isCancelling={cancel.isPending || current.data.cancel_requested}
        />
      )}
      <ImportHistory slug={source.slug} shown={importId} />
    </div>
  );
}

function UploadBar({
  progress,
  units,
  onCancel,
}: {
  progress: UploadProgress;
  units: string[];
  onCancel: () => void;
}) {
  const { t, i18n } = useTranslation();
  const labelId = useId();
  return (
    <div className="import-progress">
      <p id={labelId}>
        {t("sources.upload.uploading", {
          loaded: formatBytes(progress.loaded, i18n.language, units),
          total: formatBytes(progress.total, i18n.language, units),
        })}
      </p>
      <progress aria-labelledby={labelId} value={fraction(progress.loaded, progress.total)} max={1} />
      <Button variant="secondary" onClick={onCancel} data-autofocus>
        {t("sources.upload.cancel_upload")}
      </Button>
    </div>
  );
}

/** One import while it runs (progress, cancel), needs its columns chosen, or has ended (the report). */
export function ImportView({
  item,
  units,
  onCancel,
  isCancelling,
}: {
  item: Import;
  units: string[];
  onCancel: () => void;
  isCancelling: boolean;
}) {
  const { t, i18n } = useTranslation();
  const labelId = useId();
  // The first progress this page saw of the import: the pace since then gives the time left.
  const firstSeen = useRef<{ id: string; sample: ProgressSample } | null>(null);
  const number = (n: number) => new Intl.NumberFormat(i18n.language).format(n);
  if (item.status === "needs_mapping" && item.preview)
    return <CsvMappingForm item={item} preview={item.preview} onCancel={onCancel} />;
  if (!isActive(item)) return <ImportReportView item={item} />;
  const started = item.progress.bytes_read > 0;
  const left = started ? timeLeft(item, firstSeen) : null;
  return (
    // Not a live region: re-read every second, the progress would drown everything else. The import's
    // start takes the focus (its heading) and its end is announced by the panel.
    <div className="import-progress">
      <h3 id={labelId}>{t(`sources.import.status.${item.status}`, { name: item.file_name })}</h3>
      {/* Nothing read yet (waiting for its turn, or the reader starting): a bar without a value moves
          on its own, where one at zero would look stuck. */}
      <progress
        aria-labelledby={labelId}
        value={started ? fraction(item.progress.bytes_read, item.progress.bytes_total) : undefined}
        max={1}
      />
      <p>
        {started ? (
          <>
            {t("sources.import.progress", {
              read: formatBytes(item.progress.bytes_read, i18n.language, units),
              total: formatBytes(item.progress.bytes_total, i18n.language, units),
            })}{" "}
            {t("sources.import.records", {
              count: item.progress.imported,
              formatted: number(item.progress.imported),
            })}
            {left === null
              ? null
              : ` ${left < 60 ? t("sources.import.under_a_minute") : t("sources.import.time_left", { count: Math.ceil(left / 60) })}`}
          </>
        ) : (
          t("sources.import.preparing", {
            total: formatBytes(item.progress.bytes_total, i18n.language, units),
          })
        )}
      </p>
      <Button variant="secondary" onClick={onCancel} isBusy={isCancelling} keepsFocusWhenBusy>
        {isCancelling ? t("sources.import.cancelling") : t("sources.import.cancel")}
      </Button>
    </div>
  );
}

/** Seconds left at the pace seen since the page first saw this import's progress (kept in `firstSeen`). */
function timeLeft(
  item: Import,
  firstSeen: { current: { id: string; sample: ProgressSample } | null },
): number | null {
  const now = { atMs: Date.now(), bytes: item.progress.bytes_read };
  if (firstSeen.current?.id !== item.id) firstSeen.current = { id: item.id, sample: now };
  return timeLeftS(firstSeen.current.sample, now, item.progress.bytes_total);
}
