import type { ShareLink } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Alert } from "../ui/Alert.tsx";
import { showAlert } from "../ui/alert-store.ts";
import { Button } from "../ui/Button.tsx";

/**
 * The owner's side of a share link, for any kind: the fresh address (shown once: only its hash is
 * stored) with Copy, each active link with when it was created and last opened, Renew (optional) and
 * Revoke, and Create when there is none. Texts come from `<prefix>.share.*` in the catalogues.
 */
export function ShareLinkPanel({
  prefix,
  inputId,
  links,
  isLoading,
  fresh,
  isCreating,
  isRevoking,
  onCreate,
  onRevoke,
  onRenew,
}: {
  prefix: string;
  inputId: string;
  links: readonly ShareLink[];
  isLoading: boolean;
  fresh: string | null;
  isCreating: boolean;
  isRevoking: boolean;
  onCreate: () => void;
  onRevoke: (link: ShareLink) => void;
  onRenew?: (link: ShareLink) => void;
}) {
  const { t, i18n } = useTranslation();
  const text = (key: string, values?: Record<string, string>) => t(`${prefix}.share.${key}`, values ?? {});
  const when = (iso: string) =>
    new Intl.DateTimeFormat(i18n.language, { dateStyle: "medium", timeStyle: "short" }).format(new Date(iso));
  const copy = async () => {
    if (!fresh) return;
    try {
      await navigator.clipboard.writeText(fresh);
      showAlert(text("copied"));
    } catch {
      showAlert(text("copy_failed"), "error");
    }
  };

  return (
    <>
      {fresh && (
        <Alert status="success">
          <p>{text("created")}</p>
          <label className="field__label" htmlFor={inputId}>
            {text("address")}
          </label>
          <input
            id={inputId}
            className="field__input"
            readOnly
            value={fresh}
            onFocus={(e) => e.target.select()}
          />
          <p className="actions">
            <Button variant="secondary" onClick={() => void copy()}>
              {text("copy")}
            </Button>
          </p>
        </Alert>
      )}
      {links.length > 0 && (
        <ul className="share-links">
          {links.map((link) => (
            <li key={link.id}>
              <span>
                {text("link_created", { when: when(link.created) })}
                {" · "}
                {link.last_opened
                  ? text("last_opened", { when: when(link.last_opened) })
                  : text("never_opened")}
              </span>
              <span className="actions">
                {onRenew && (
                  <Button variant="secondary" isBusy={isCreating} onClick={() => onRenew(link)}>
                    {text("renew")}
                  </Button>
                )}
                <Button variant="danger" isBusy={isRevoking} onClick={() => onRevoke(link)}>
                  {text("revoke")}
                </Button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {links.length === 0 && !isLoading && (
        <Button isBusy={isCreating} onClick={onCreate}>
          {text("create")}
        </Button>
      )}
    </>
  );
}
