import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ShareLinkPanel } from "../../shared/share/ShareLinkPanel.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import {
  measurementShareUrl,
  useMeasurementShares,
  useRevokeMeasurementShare,
  useShareMeasurement,
} from "./share-api.ts";

/** Share this one measurement by link: create (shown once), copy, see when it was opened, revoke. */
export function ShareMeasurementCard({ id }: { id: string }) {
  const { t } = useTranslation();
  const links = useMeasurementShares(id);
  const create = useShareMeasurement(id);
  const revoke = useRevokeMeasurementShare();
  const [fresh, setFresh] = useState<string | null>(null);

  return (
    <section className="card" aria-labelledby="measure-share-title">
      <h2 id="measure-share-title" className="card__title">
        {t("measure.share.title")}
      </h2>
      <p>{t("measure.share.text")}</p>
      <ShareLinkPanel
        prefix="measure"
        inputId="measure-share-url"
        links={links.data ?? []}
        isLoading={links.isPending}
        fresh={fresh}
        isCreating={create.isPending}
        isRevoking={revoke.isPending}
        onCreate={() =>
          create.mutate(undefined, {
            onSuccess: (created) => setFresh(measurementShareUrl(created.token)),
            onError: () => showAlert(t("measure.share.failed"), "error"),
          })
        }
        onRevoke={(link) =>
          revoke.mutate(link.id, {
            onSuccess: () => {
              setFresh(null);
              showAlert(t("measure.share.revoked"));
            },
          })
        }
      />
    </section>
  );
}
