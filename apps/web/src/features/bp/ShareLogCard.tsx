import { useState } from "react";
import { useTranslation } from "react-i18next";
import { ShareLinkPanel } from "../../shared/share/ShareLinkPanel.tsx";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Card } from "../../shared/ui/Card.tsx";
import { shareUrl, useCreateLogShare, useLogShareLinks, useRevokeShare } from "./bp-api.ts";

/** Sharing the log by link: create, copy, see when it was last opened, revoke or renew. */
export function ShareLogCard() {
  const { t } = useTranslation();
  const links = useLogShareLinks();
  const create = useCreateLogShare();
  const revoke = useRevokeShare();
  const [fresh, setFresh] = useState<string | null>(null);

  const createLink = async (replacing?: string) => {
    try {
      if (replacing) await revoke.mutateAsync(replacing);
      const created = await create.mutateAsync();
      setFresh(shareUrl(created.token));
    } catch {
      showAlert(t("bp.share.failed"), "error");
    }
  };

  return (
    <Card title={t("bp.share.title")} className="no-print">
      <p>{t("bp.share.text")}</p>
      {links.isError && <Alert status="error">{t("bp.share.load_failed")}</Alert>}
      <ShareLinkPanel
        prefix="bp"
        inputId="bp-share-url"
        links={links.data ?? []}
        isLoading={links.isPending}
        fresh={fresh}
        isCreating={create.isPending}
        isRevoking={revoke.isPending}
        onCreate={() => void createLink()}
        onRenew={(link) => void createLink(link.id)}
        onRevoke={(link) =>
          revoke.mutate(link.id, {
            onSuccess: () => {
              setFresh(null);
              showAlert(t("bp.share.revoked"));
            },
          })
        }
      />
    </Card>
  );
}
