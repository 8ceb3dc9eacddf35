import { useState } from "react";
import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { shareUrl, useCreateLogShare, useLogShareLinks, useRevokeShare } from "./bp-api.ts";

/**
 * Sharing the log by link: create (the address is shown once: only its hash is stored), copy, see
 * when it was last opened, revoke or renew.
 */
export function ShareLogCard() {
  const { t, i18n } = useTranslation();
  const links = useLogShareLinks();
  const create = useCreateLogShare();
  const revoke = useRevokeShare();
  const [fresh, setFresh] = useState<string | null>(null);
  const when = (iso: string | null) =>
    iso
      ? new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(
          new Date(iso),
        )
      : null;

  const createLink = async (replacing?: string) => {
    try {
      if (replacing) await revoke.mutateAsync(replacing);
      const created = await create.mutateAsync();
      setFresh(shareUrl(created.token));
    } catch {
      showAlert(t("bp.share.failed"), "error");
    }
  };
  const copy = async () => {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      showAlert(t("bp.share.copied"));
    } catch {
      showAlert(t("bp.share.copy_failed"), "error");
    }
  };

  const active = links.data ?? [];
  return (
    <Card title={t("bp.share.title")} className="no-print">
      <p>{t("bp.share.text")}</p>
      {fresh && (
        <Alert status="success">
          <p>{t("bp.share.created")}</p>
          <label className="field__label" htmlFor="bp-share-url">
            {t("bp.share.address")}
          </label>
          <input
            id="bp-share-url"
            className="field__input"
            readOnly
            value={fresh}
            onFocus={(e) => e.target.select()}
          />
          <p className="actions">
            <Button variant="secondary" onClick={() => void copy()}>
              {t("bp.share.copy")}
            </Button>
          </p>
        </Alert>
      )}
      {links.isError && <Alert status="error">{t("bp.share.load_failed")}</Alert>}
      {active.length > 0 && (
        <ul className="bp-share-list">
          {active.map((link) => (
            <li key={link.id}>
              <span>
                {t("bp.share.link_created", { when: when(link.created) })}
                {" · "}
                {link.last_opened
                  ? t("bp.share.last_opened", { when: when(link.last_opened) })
                  : t("bp.share.never_opened")}
              </span>
              <span className="actions">
                <Button
                  variant="secondary"
                  isBusy={create.isPending}
                  onClick={() => void createLink(link.id)}
                >
                  {t("bp.share.renew")}
                </Button>
                <Button
                  variant="danger"
                  isBusy={revoke.isPending}
                  onClick={() =>
                    revoke.mutate(link.id, {
                      onSuccess: () => {
                        setFresh(null);
                        showAlert(t("bp.share.revoked"));
                      },
                    })
                  }
                >
                  {t("bp.share.revoke")}
                </Button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {active.length === 0 && !links.isPending && (
        <Button isBusy={create.isPending} onClick={() => void createLink()}>
          {t("bp.share.create")}
        </Button>
      )}
    </Card>
  );
}
