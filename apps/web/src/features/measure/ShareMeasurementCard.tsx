import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import {
  measurementShareUrl,
  useMeasurementShares,
  useRevokeMeasurementShare,
  useShareMeasurement,
} from "./share-api.ts";

/** Share this one measurement by link: create (shown once), copy, see when it was opened, revoke. */
export function ShareMeasurementCard({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const links = useMeasurementShares(id);
  const create = useShareMeasurement(id);
  const revoke = useRevokeMeasurementShare();
  const [fresh, setFresh] = useState<string | null>(null);
  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));

  const copy = async () => {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      showAlert(t("measure.share.copied"));
    } catch {
      showAlert(t("measure.share.copy_failed"), "error");
    }
  };

  return (
    <section className="card" aria-labelledby="measure-share-title">
      <h2 id="measure-share-title" className="card__title">
        {t("measure.share.title")}
      </h2>
      <p>{t("measure.share.text")}</p>
      {fresh && (
        <Alert status="success">
          <p>{t("measure.share.created")}</p>
          <label className="field__label" htmlFor="measure-share-url">
            {t("measure.share.address")}
          </label>
          <input
            id="measure-share-url"
            className="field__input"
            readOnly
            value={fresh}
            onFocus={(e) => e.target.select()}
          />
          <p className="measure-actions">
            <Button variant="secondary" onClick={() => void copy()}>
              {t("measure.share.copy")}
            </Button>
          </p>
        </Alert>
      )}
      {(links.data ?? []).map((link) => (
        <p key={link.id} className="measure-actions">
          <span>
            {t("measure.share.link_created", { when: when(link.created) })}
            {" · "}
            {link.last_opened
              ? t("measure.share.last_opened", { when: when(link.last_opened) })
              : t("measure.share.never_opened")}
          </span>
          <Button
            variant="danger"
            isBusy={revoke.isPending}
            onClick={() =>
              revoke.mutate(link.id, {
                onSuccess: () => {
                  setFresh(null);
                  showAlert(t("measure.share.revoked"));
                },
              })
            }
          >
            {t("measure.share.revoke")}
          </Button>
        </p>
      ))}
      {links.data?.length === 0 && (
        <Button
          isBusy={create.isPending}
          onClick={() =>
            create.mutate(undefined, {
              onSuccess: (created) => setFresh(measurementShareUrl(created.token)),
              onError: () => showAlert(t("measure.share.failed"), "error"),
            })
          }
        >
          {t("measure.share.create")}
        </Button>
      )}
    </section>
  );
}
