import type { ReferralSummary } from "@tonus/contract";
import { useEffect } from "react";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { InviteFriend } from "./InviteFriend.tsx";
import { useCreateReferralCode, useReferralSummary } from "./referral-api.ts";
import "./referral.css";

/** /referral (spec §2, §3 Referral): the link to share, friends invited and counted, the reward, invitations. */
export default function ReferralPage() {
  const { t } = useTranslation();
  const summary = useReferralSummary();
  if (summary.isPending) return <LoadingState />;
  if (!summary.data) return <Alert status="error">{t("referral.load_failed")}</Alert>;
  const data = summary.data;
  return (
    <div className="stack">
      <p>{rewardText(t, data.reward)}</p>
      <ReferralLink link={data.link} />
      <section className="card" aria-labelledby="friends-title">
        <h2 id="friends-title" className="card__title">
          {t("referral.stats.title")}
        </h2>
        <dl className="referral-stats">
          <dt>{t("referral.stats.invited")}</dt>
          <dd>{data.invited}</dd>
          <dt>{t("referral.stats.joined")}</dt>
          <dd>{data.joined}</dd>
          <dt>{t("referral.stats.paid")}</dt>
          <dd>{data.paid}</dd>
          <dt>{t("referral.stats.earned")}</dt>
          <dd>{t("referral.stats.days", { count: data.reward.earned_days })}</dd>
        </dl>
      </section>
      <InviteFriend />
      <Invitations invitations={data.invitations} />
    </div>
  );
}

function rewardText(t: ReturnType<typeof useTranslation>["t"], reward: ReferralSummary["reward"]): string {
  if (!reward.enabled) return t("referral.intro_plain");
  const days = t("referral.intro_reward", { count: reward.days_per_friend });
  return reward.max_friends === null
    ? days
    : `${days} ${t("referral.intro_limit", { count: reward.max_friends })}`;
}

/** The link to share; made on the first visit (reading the page never writes, so it is a POST here). */
function ReferralLink({ link }: { link: string | null }) {
  const { t } = useTranslation();
  const create = useCreateReferralCode();
  const { mutate, isIdle } = create;
  useEffect(() => {
    if (link === null && isIdle) mutate();
  }, [link, isIdle, mutate]);
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      showAlert(t("referral.link.copied"));
    } catch {
      showAlert(t("referral.link.copy_failed"), "error");
    }
  };
  return (
    <section className="card" aria-labelledby="link-title">
      <h2 id="link-title" className="card__title">
        {t("referral.link.title")}
      </h2>
      {create.isError && (
        <Alert status="error">
          {t("referral.link.failed")}{" "}
          <Button variant="secondary" onClick={() => create.mutate()}>
            {t("referral.link.retry")}
          </Button>
        </Alert>
      )}
      {link === null && !create.isError && <LoadingState />}
      {link !== null && (
        <div className="row referral-link">
          <div className="field">
            <label className="field__label" htmlFor="referral-link">
              {t("referral.link.label")}
            </label>
            <input
              id="referral-link"
              className="field__input"
              readOnly
              value={link}
              onFocus={(e) => e.target.select()}
            />
          </div>
          <Button variant="secondary" onClick={() => void copy()}>
            {t("referral.link.copy")}
          </Button>
        </div>
      )}
    </section>
  );
}

function Invitations({ invitations }: { invitations: ReferralSummary["invitations"] }) {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const date = (iso: string) =>
    new Intl.DateTimeFormat(language === "ru" ? "ru-RU" : "en-US", { dateStyle: "medium" }).format(
      new Date(iso),
    );
  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title" className="card__title">
        {t("referral.invitations.title")}
      </h2>
      {invitations.length === 0 ? (
        <p className="empty-state">{t("referral.invitations.empty")}</p>
      ) : (
        <table className="referral-invitations">
          <thead>
            <tr>
              <th scope="col">{t("referral.invitations.email")}</th>
              <th scope="col">{t("referral.invitations.date")}</th>
              <th scope="col">{t("referral.invitations.state")}</th>
            </tr>
          </thead>
          <tbody>
            {invitations.map((inv) => (
              <tr key={inv.email}>
                <td>{inv.email}</td>
                <td>{date(inv.invited_at)}</td>
                <td>
                  {t(`referral.invitations.status.${inv.status}`)}
                  {inv.status === "invited" && (
                    <span className="muted">
                      {" "}
                      · {t("referral.invitations.sent_times", { count: inv.times_sent })}
                    </span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
