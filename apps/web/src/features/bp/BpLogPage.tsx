import { useQueryClient } from "@tanstack/react-query";
import type { BpReading, BpReadingCreate } from "@tonus/contract";
import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { BpAveragesSection } from "./BpAveragesSection.tsx";
import {
  BP_QUERY_KEY,
  deleteReading,
  PAGE_SIZE,
  useCreateReading,
  useReadings,
  useUpdateReading,
} from "./bp-api.ts";
import { ReadingForm } from "./ReadingForm.tsx";
import { ReadingsTable } from "./ReadingsTable.tsx";
import { draftOf } from "./reading-form.ts";
import { ShareLogCard } from "./ShareLogCard.tsx";
import "./bp.css";

const UNDO_MS = 6000;

function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** The server's message for a refused save, else a generic one. */
function useErrorText() {
  const { t } = useTranslation();
  return (error: unknown) =>
    error instanceof ApiError && error.status >= 400 && error.status < 500 && error.body?.error
      ? error.body.error
      : t("bp.save_failed");
}

/** /blood-pressure: add, edit and delete readings, averages, the ESC/ESH category, sharing and printing. */
export default function BpLogPage() {
  const { t } = useTranslation();
  const [limit, setLimit] = useState(PAGE_SIZE);
  const readings = useReadings(limit);
  const queryClient = useQueryClient();
  const create = useCreateReading();
  const update = useUpdateReading();
  const errorText = useErrorText();
  const [editing, setEditing] = useState<BpReading | null>(null);
  const [pendingDelete, setPendingDelete] = useState<BpReading | null>(null);
  const deleteTimer = useRef<number | undefined>(undefined);

  // A deletion waits a few seconds for Undo; leaving the page carries it out at once.
  const commitDelete = useRef<() => void>(() => {});
  commitDelete.current = () => {
    if (!pendingDelete) return;
    window.clearTimeout(deleteTimer.current);
    const reading = pendingDelete;
    setPendingDelete(null);
    deleteReading(reading.id)
      .then(() => queryClient.invalidateQueries({ queryKey: BP_QUERY_KEY }))
      .catch(() => showAlert(t("bp.delete_failed"), "error"));
  };
  useEffect(() => () => commitDelete.current(), []);

  const askDelete = (reading: BpReading) => {
    commitDelete.current();
    setPendingDelete(reading);
    deleteTimer.current = window.setTimeout(() => commitDelete.current(), UNDO_MS);
  };
  const undoDelete = () => {
    window.clearTimeout(deleteTimer.current);
    setPendingDelete(null);
  };

  const add = async (reading: Omit<BpReadingCreate, "client_id" | "time_zone">) => {
    try {
      await create.mutateAsync({ ...reading, client_id: crypto.randomUUID(), time_zone: browserTimeZone() });
      showAlert(t("bp.saved"));
      return true;
    } catch {
      return false;
    }
  };
  const saveEdit = async (reading: Omit<BpReadingCreate, "client_id" | "time_zone">) => {
    if (!editing) return false;
    try {
      await update.mutateAsync({ id: editing.id, update: reading });
      setEditing(null);
      showAlert(t("bp.saved"));
      return true;
    } catch {
      return false;
    }
  };

  const list = (readings.data?.results ?? []).filter((reading) => reading.id !== pendingDelete?.id);

  return (
    <div className="stack bp-page">
      <Card title={editing ? t("bp.edit_title") : t("bp.add_title")} className="no-print">
        {editing ? (
          <ReadingForm
            key={editing.id}
            initial={draftOf(editing)}
            submitLabel={t("bp.save")}
            isBusy={update.isPending}
            serverError={update.isError ? errorText(update.error) : null}
            onSubmit={saveEdit}
            onCancel={() => setEditing(null)}
          />
        ) : (
          <ReadingForm
            submitLabel={t("bp.add")}
            isBusy={create.isPending}
            serverError={create.isError ? errorText(create.error) : null}
            onSubmit={add}
          />
        )}
      </Card>

      {pendingDelete && (
        <div className="bp-undo no-print" role="status">
          <span>{t("bp.deleted")}</span>
          <Button variant="secondary" onClick={undoDelete}>
            {t("bp.undo")}
          </Button>
        </div>
      )}

      <BpAveragesSection source={{ kind: "own" }} />

      <Card title={t("bp.log_title")}>
        <p className="actions no-print">
          <Button variant="secondary" onClick={() => window.print()}>
            {t("bp.print")}
          </Button>
        </p>
        {readings.isPending ? (
          <LoadingState />
        ) : readings.isError ? (
          <Alert status="error">
            <p>{t("bp.load_failed")}</p>
            <Button variant="secondary" onClick={() => void readings.refetch()}>
              {t("common.retry")}
            </Button>
          </Alert>
        ) : list.length === 0 ? (
          <p className="empty-state">{t("bp.empty")}</p>
        ) : (
          <>
            <ReadingsTable readings={list} onEdit={setEditing} onDelete={askDelete} />
            <p className="muted">{t("bp.count", { count: readings.data.count })}</p>
            {readings.data.count > list.length + (pendingDelete ? 1 : 0) && (
              <Button
                variant="secondary"
                isBusy={readings.isFetching}
                onClick={() => setLimit(limit + PAGE_SIZE)}
              >
                {t("bp.load_more")}
              </Button>
            )}
          </>
        )}
      </Card>

      <ShareLogCard />
    </div>
  );
}
