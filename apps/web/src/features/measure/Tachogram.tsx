import { useTranslation } from "react-i18next";

const WIDTH = 600;
const HEIGHT = 180;
const PAD = { left: 44, right: 8, top: 8, bottom: 24 };

/** Round tick values covering [min, max]. */
export function niceTicks(min: number, max: number, count = 4): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10) * magnitude;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/**
 * RR intervals against beat number (a tachogram); beats the artifact correction changed are marked
 * with a red dot, and the line breaks where beats were not timed (`breaks`: indices of intervals that
 * do not follow the one before). An SVG with a text summary for screen readers.
 */
export function Tachogram({
  rrMs,
  corrected,
  breaks = [],
}: {
  rrMs: readonly number[];
  corrected: readonly number[];
  breaks?: readonly number[];
}) {
  const { t } = useTranslation();
  if (rrMs.length < 2) return null;
  const min = Math.min(...rrMs);
  const max = Math.max(...rrMs);
  const span = max - min || 1;
  const x = (i: number) => PAD.left + (i / (rrMs.length - 1)) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - min) / span) * (HEIGHT - PAD.top - PAD.bottom);
  const cuts = [...new Set(breaks.filter((i) => i > 0 && i < rrMs.length))].sort((a, b) => a - b);
  const runs = [0, ...cuts].map((start, k) => ({ start, end: cuts[k] ?? rrMs.length }));
  const lines = runs.map(({ start, end }) => ({
    start,
    points: rrMs
      .slice(start, end)
      .map((rr, offset) => `${x(start + offset).toFixed(1)},${y(rr).toFixed(1)}`)
      .join(" "),
  }));
  const marked = corrected.filter((i) => i >= 0 && i < rrMs.length);
  return (
    <figure className="measure-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={t("measure.charts.tachogram_summary", {
          count: rrMs.length,
          min: Math.round(min),
          max: Math.round(max),
          corrected: marked.length,
        })}
      >
        {niceTicks(min, max).map((tick) => (
          <g key={tick} className="measure-chart__grid">
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} />
            <text x={PAD.left - 4} y={y(tick) + 4} textAnchor="end">
              {Math.round(tick)}
            </text>
          </g>
        ))}
        {lines.map((line) => (
          <polyline key={line.start} className="measure-chart__line" points={line.points} fill="none" />
        ))}
        {marked.map((i) => (
          <circle key={i} className="measure-chart__corrected" cx={x(i)} cy={y(rrMs[i] ?? 0)} r={4} />
        ))}
      </svg>
      <figcaption className="muted">
        {t("measure.charts.tachogram_caption")}
        {marked.length > 0 && ` ${t("measure.charts.corrected_legend", { count: marked.length })}`}
        {cuts.length > 0 && ` ${t("measure.charts.breaks_legend", { count: cuts.length })}`}
      </figcaption>
    </figure>
  );
}
