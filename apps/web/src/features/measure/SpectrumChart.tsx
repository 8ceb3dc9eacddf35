import { BANDS } from "@tonus/hrv";
import { useTranslation } from "react-i18next";

const WIDTH = 600;
const HEIGHT = 200;
const PAD = { left: 16, right: 8, top: 8, bottom: 28 };
const MAX_HZ = 0.5;

const BAND_CLASSES = ["vlf", "lf", "hf"] as const;

/** Power spectral density up to 0.5 Hz with the VLF, LF and HF bands shaded. */
export function SpectrumChart({
  frequencyHz,
  psdMs2PerHz,
}: {
  frequencyHz: readonly number[];
  psdMs2PerHz: readonly number[];
}) {
  const { t } = useTranslation();
  const points = frequencyHz
    .map((f, i) => ({ f, p: psdMs2PerHz[i] ?? 0 }))
    .filter((point) => point.f <= MAX_HZ && Number.isFinite(point.p));
  if (points.length < 2) return null;
  const maxP = Math.max(...points.map((point) => point.p)) || 1;
  const x = (f: number) => PAD.left + (f / MAX_HZ) * (WIDTH - PAD.left - PAD.right);
  const y = (p: number) => PAD.top + (1 - p / maxP) * (HEIGHT - PAD.top - PAD.bottom);
  const bottom = HEIGHT - PAD.bottom;
  const path = points.map((point) => `${x(point.f).toFixed(1)},${y(point.p).toFixed(1)}`).join(" ");
  const peak = points.reduce((best, point) => (point.p > best.p ? point : best));
  return (
    <figure className="measure-chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={t("measure.charts.spectrum_summary", { peak: peak.f.toFixed(3) })}
      >
        {BAND_CLASSES.map((band) => {
          const [low, high] = BANDS[band];
          return (
            <g key={band}>
              <rect
                className={`measure-chart__band measure-chart__band--${band}`}
                x={x(low)}
                y={PAD.top}
                width={x(Math.min(high, MAX_HZ)) - x(low)}
                height={bottom - PAD.top}
              />
              <text
                className="measure-chart__band-label"
                x={(x(low) + x(Math.min(high, MAX_HZ))) / 2}
                y={HEIGHT - 8}
              >
                {t(`measure.values.${band}.short`)}
              </text>
            </g>
          );
        })}
        <polygon
          className="measure-chart__area"
          points={`${x(points[0]?.f ?? 0)},${bottom} ${path} ${x(points.at(-1)?.f ?? 0)},${bottom}`}
        />
        <polyline className="measure-chart__line" points={path} fill="none" />
      </svg>
      <figcaption className="muted">{t("measure.charts.spectrum_caption")}</figcaption>
    </figure>
  );
}
