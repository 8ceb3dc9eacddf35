import type { MeasurementDetail, ParameterDecoding } from "@tonus/contract";
import { useTranslation } from "react-i18next";
import { Link, useNavigate } from "react-router";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { LearnMore } from "../academy/LearnMore.tsx";
import { useRouteParams } from "../academy/use-route-params.ts";
import { EditNotesCard } from "./EditNotesCard.tsx";
import { formatStartedAt } from "./format-date.ts";
import { useDeleteMeasurement, useMeasurement } from "./measure-api.ts";
import { ShareMeasurementCard } from "./ShareMeasurementCard.tsx";
import { SpectrumChart } from "./SpectrumChart.tsx";
import { Tachogram } from "./Tachogram.tsx";
import { BP_INDEX_KEYS, formatNumber, VALUE_GROUPS, VALUE_UNITS, type ValueKey } from "./values.ts";
import "./measure.css";

const SCORES = ["energy", "stress", "performance"] as const;

/** Value keys whose academy parameter (material front matter) is named differently. */
const ACADEMY_PARAMETER: Record<string, string> = {
  stdrr: "sdnn",
  psi: "stress_index",
  power: "total_power",
};

/** /measure-details/:id — the full result of one measurement (no header or footer: spec §2). */
export default function MeasurementDetailPage() {
  const { t } = useTranslation();
  const id = useRouteParams().id ?? "";
  const measurement = useMeasurement(id);

  if (measurement.isPending) return <LoadingState />;
  if (measurement.isError) {
    return (
      <Alert status="error">
        <p>{t("measure.detail.load_failed")}</p>
        <div className="measure-actions">
          <Button variant="secondary" onClick={() => void measurement.refetch()}>
            {t("common.retry")}
          </Button>
          <Link to="/measurements">{t("measure.detail.back")}</Link>
        </div>
      </Alert>
    );
  }
  return <Detail m={measurement.data} />;
}

/** The result itself; `shared` is the read-only view a share link opens (no navigation, delete or sharing). */
export function Detail({ m, mode = "owner" }: { m: MeasurementDetail; mode?: "owner" | "shared" }) {
  const { t } = useTranslation();
  const localeTag = t("locale_tag");
  const correctedIndexes = m.corrected_beats.map((beat) => beat.index);
  return (
    <div className="measure-detail">
      {mode === "owner" && (
        <nav className="measure-detail__nav">
          <Link to="/measurements">{t("measure.detail.back")}</Link>
          <Link to="/measure">{t("measure.detail.measure_again")}</Link>
        </nav>
      )}
      <p className="muted">
        {t("measure.detail.taken", {
          date: formatStartedAt(m.started_at, m.time_zone, localeTag),
          source: t(`measure.sources.${m.source}`),
        })}
      </p>
      {m.quality === "bad_data" && <Alert status="error">{t("measure.quality.bad_data")}</Alert>}
      {m.quality === "not_enough_data" && <Alert status="info">{t("measure.quality.not_enough_data")}</Alert>}

      <section className="card" aria-labelledby="scores-title">
        <h2 id="scores-title" className="card__title">
          {t("measure.detail.scores")}
        </h2>
        <ul className="measure-scores">
          {SCORES.map((score) => (
            <li key={score} className={`measure-score measure-score--${score}`}>
              <span className="measure-score__name">{t(`measure.scores.${score}.name`)}</span>
              <span className="measure-score__value" data-testid={`score-${score}`}>
                {m[score] === null ? "—" : Math.round(m[score] ?? 0)}
              </span>
              <span className="measure-score__about">{t(`measure.scores.${score}.about`)}</span>
            </li>
          ))}
        </ul>
      </section>

      {VALUE_GROUPS.map((group) => (
        <section key={group.key} className="card" aria-labelledby={`group-${group.key}`}>
          <h2 id={`group-${group.key}`} className="card__title">
            {t(`measure.groups.${group.key}`)}
          </h2>
          {group.key === "frequency" && m.spectrum === null && (
            <p className="muted">{t("measure.detail.no_frequency")}</p>
          )}
          <ValueTable m={m} keys={group.values} localeTag={localeTag} />
          {group.key === "time" && (
            <Tachogram rrMs={m.rr_ms} corrected={correctedIndexes} breaks={m.rr_breaks} />
          )}
          {group.key === "frequency" && m.spectrum && (
            <SpectrumChart frequencyHz={m.spectrum.frequency_hz} psdMs2PerHz={m.spectrum.psd_ms2_per_hz} />
          )}
        </section>
      ))}

      <BpSection m={m} localeTag={localeTag} />
      <DecodingSection m={m} localeTag={localeTag} />
      {mode === "shared" && m.tags.length > 0 && (
        <section className="card" aria-labelledby="tags-title">
          <h2 id="tags-title" className="card__title">
            {t("measure.save.tags")}
          </h2>
          <ul className="measure-tags">
            {m.tags.map((tag) => (
              <li key={tag}>{tag}</li>
            ))}
          </ul>
        </section>
      )}
      {mode === "owner" && (
        <>
          <EditNotesCard m={m} />
          <ShareMeasurementCard id={m.id} />
          <DeleteButton id={m.id} />
        </>
      )}
    </div>
  );
}

function ValueTable({
  m,
  keys,
  localeTag,
}: {
  m: MeasurementDetail;
  keys: readonly ValueKey[];
  localeTag: string;
}) {
  const { t } = useTranslation();
  return (
    <dl className="measure-values">
      {keys.map((key) => {
        const value = m[key];
        const { unit, decimals } = VALUE_UNITS[key];
        return (
          <div key={key} data-testid={`value-${key}`}>
            <dt>
              <abbr title={t(`measure.values.${key}.name`)}>{t(`measure.values.${key}.short`)}</abbr>
            </dt>
            <dd>
              {value === null
                ? "—"
                : t(`measure.units.${unit}`, { value: formatNumber(value, decimals, localeTag) })}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

function BpSection({ m, localeTag }: { m: MeasurementDetail; localeTag: string }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="bp-title">
      <h2 id="bp-title" className="card__title">
        {t("measure.groups.bp")}
      </h2>
      {m.bp ? (
        <p>
          {t("measure.bp.reading", {
            systolic: m.bp.systolic,
            diastolic: m.bp.diastolic,
            date: formatStartedAt(m.bp.measured_at, m.time_zone, localeTag),
          })}
        </p>
      ) : (
        <p className="muted">{t("measure.bp.none")}</p>
      )}
      <dl className="measure-values">
        {BP_INDEX_KEYS.map((key) => {
          const value = m[key];
          const level =
            key === "functional_changes"
              ? m.functional_changes_level && t(`measure.bp.levels.${m.functional_changes_level}`)
              : key === "phys_state"
                ? m.phys_state_level && t(`measure.bp.levels.${m.phys_state_level}`)
                : null;
          return (
            <div key={key}>
              <dt>{t(`measure.bp.${key}`)}</dt>
              <dd>
                {value === null ? "—" : formatNumber(value, 2, localeTag)}
                {level && ` · ${level}`}
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}

function DecodingSection({ m, localeTag }: { m: MeasurementDetail; localeTag: string }) {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="decoding-title">
      <h2 id="decoding-title" className="card__title">
        {t("measure.decoding.title")}
      </h2>
      {m.decoding_locked ? (
        <div className="measure-locked" data-testid="decoding-locked">
          <p>{t("measure.decoding.locked")}</p>
          <Link className="btn btn--primary" to="/payment">
            {t("measure.decoding.upgrade")}
          </Link>
        </div>
      ) : m.decoding === null || m.decoding.length === 0 ? (
        <p className="muted">
          {m.quality === "bad_data" ? t("measure.quality.bad_data") : t("measure.decoding.none")}
        </p>
      ) : (
        <ul className="measure-decoding">
          {m.decoding.map((item) => (
            <DecodingItem key={item.parameter} item={item} localeTag={localeTag} />
          ))}
        </ul>
      )}
    </section>
  );
}

function DecodingItem({ item, localeTag }: { item: ParameterDecoding; localeTag: string }) {
  const { t } = useTranslation();
  const known = item.parameter in VALUE_UNITS;
  const decimals = known ? VALUE_UNITS[item.parameter as ValueKey].decimals : 2;
  const name = known ? t(`measure.values.${item.parameter}.name`) : item.parameter;
  const fmt = (value: number) => formatNumber(value, decimals, localeTag);
  return (
    <li className="measure-decoding__item">
      <h3>
        {name}: {fmt(item.value)}
      </h3>
      {known && <p>{t(`measure.values.${item.parameter}.about`)}</p>}
      {item.norm && item.norm_zone && (
        <p>
          {t(`measure.decoding.norm_${item.norm_zone}`, {
            low: fmt(item.norm.low),
            high: fmt(item.norm.high),
          })}
        </p>
      )}
      {item.baseline && item.baseline_zone ? (
        <p>
          {t(`measure.decoding.baseline_${item.baseline_zone}`, {
            mean: fmt(item.baseline.mean),
            count: item.baseline.count,
          })}
        </p>
      ) : (
        <p className="muted">{t("measure.decoding.no_baseline")}</p>
      )}
      <LearnMore parameter={ACADEMY_PARAMETER[item.parameter] ?? item.parameter} />
    </li>
  );
}

function DeleteButton({ id }: { id: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const remove = useDeleteMeasurement(id);
  return (
    <div className="measure-actions">
      <Button
        variant="danger"
        isBusy={remove.isPending}
        onClick={() => {
          if (window.confirm(t("measure.detail.delete_confirm"))) {
            remove.mutate(undefined, { onSuccess: () => navigate("/measurements") });
          }
        }}
      >
        {t("measure.detail.delete")}
      </Button>
      {remove.isError && <Alert status="error">{t("measure.detail.delete_failed")}</Alert>}
    </div>
  );
}
