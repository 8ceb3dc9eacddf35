import type { ChartItem } from "@tonus/contract";
import { useId } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { pick } from "./format.ts";

/** Where PRO is bought (spec §2 /payment, public). */
export const UPGRADE_PATH = "/payment";

/** Spec §6: free users and visitors see a demo, clearly labelled, with what PRO would give them. */
export function DemoBanner({ isSignedIn }: { isSignedIn: boolean }) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <section className="demo-banner" aria-labelledby={id}>
      <h2 id={id} className="demo-banner__title">
        {t("dashboard.demo.title")}
      </h2>
      <p>{t("dashboard.demo.text")}</p>
      <p>{t("dashboard.demo.pro")}</p>
      <p className="actions">
        <Link className="btn btn--primary" to={UPGRADE_PATH}>
          {t("dashboard.upgrade.action")}
        </Link>
        {!isSignedIn && (
          <Link className="btn btn--secondary" to="/auth/registration/">
            {t("dashboard.demo.register")}
          </Link>
        )}
      </p>
    </section>
  );
}

/** An inline prompt in place of a PRO control (editing the dashboard, typing values in, the table's parameters). */
export function UpgradePrompt({ text }: { text: string }) {
  const { t } = useTranslation();
  return (
    <div className="upgrade-prompt">
      <LockIcon />
      <p>{text}</p>
      <Link className="btn btn--secondary" to={UPGRADE_PATH}>
        {t("dashboard.upgrade.action")}
      </Link>
    </div>
  );
}

/** A chart the demo does not show: its title, a faded placeholder and the way to unlock it. */
export function LockedChartCard({ item, language }: { item: ChartItem; language: string }) {
  const { t } = useTranslation();
  const id = useId();
  const title = pick(item.title, language);
  return (
    <article className="chart-card chart-card--locked" aria-labelledby={id}>
      <header className="chart-card__header">
        <h3 id={id} className="chart-card__title">
          {title}
        </h3>
        <span className="locked-badge">
          <LockIcon />
          {t("dashboard.locked.badge")}
        </span>
      </header>
      <div className="chart-card__placeholder" aria-hidden="true" />
      <p>{t("dashboard.locked.text", { title })}</p>
      <Link className="btn btn--secondary" to={UPGRADE_PATH}>
        {t("dashboard.upgrade.action")}
      </Link>
    </article>
  );
}

function LockIcon() {
  return (
    <svg
      className="lock-icon"
      width="16"
      height="16"
      viewBox="0 0 16 16"
      aria-hidden="true"
      focusable="false"
    >
      <path
        fill="currentColor"
        d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6A1.5 1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm-2 3.5a2 2 0 1 1 4 0V6H6V4.5Z"
      />
    </svg>
  );
}
