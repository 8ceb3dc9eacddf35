import { useTranslation } from "react-i18next";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { Card } from "../../shared/ui/Card.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useConnectedServices, useRevokeService } from "./oauth-api.ts";

/** The profile's "Connected services": who has access to the account, and revoking it. */
export function ConnectedServices() {
  const { t, i18n } = useTranslation();
  const services = useConnectedServices();
  const revoke = useRevokeService();
  const date = (iso: string) => new Date(iso).toLocaleDateString(i18n.language, { dateStyle: "medium" });

  return (
    <Card title={t("oauth.services.title")}>
      {services.isPending && <LoadingState />}
      {services.isError && <Alert status="error">{t("oauth.services.load_failed")}</Alert>}
      {services.data?.length === 0 && <p>{t("oauth.services.empty")}</p>}
      {revoke.isError && <Alert status="error">{t("oauth.services.revoke_failed")}</Alert>}
      {services.data && services.data.length > 0 && (
        <ul className="oauth-services">
          {services.data.map((service) => (
            <li key={service.id} className="oauth-services__item">
              <div>
                <strong>{service.name}</strong>
                <div>{t("oauth.services.connected", { date: date(service.connected) })}</div>
                <div>
                  {service.last_used
                    ? t("oauth.services.last_used", { date: date(service.last_used) })
                    : t("oauth.services.never_used")}
                </div>
                <div>{service.scopes.map((scope) => t(`oauth.scopes.${scope}`)).join("; ")}</div>
              </div>
              <Button
                variant="danger"
                isBusy={revoke.isPending && revoke.variables === service.id}
                onClick={() => revoke.mutate(service.id)}
                aria-label={t("oauth.services.revoke_named", { name: service.name })}
              >
                {t("oauth.services.revoke")}
              </Button>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
