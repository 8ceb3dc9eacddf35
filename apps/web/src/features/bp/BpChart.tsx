import { useMemo } from "react";
import { buildPlotData, buildPlotOptions, type PlotSpec, SERIES_COLORS } from "../dashboard/chart-options.ts";
import { UPlotChart } from "../dashboard/UPlotChart.tsx";

/**
 * The log's averages drawn with the dashboard's uPlot chart: its own lazy chunk, so the log page loads
 * without the chart library and draws once it arrives. The canvas is hidden from assistive technology;
 * the legend here and the table beside it say the same in text.
 */
export default function BpChart({ spec, label }: { spec: PlotSpec; label: string }) {
  const plot = useMemo(() => ({ options: buildPlotOptions(spec), data: buildPlotData(spec) }), [spec]);
  return (
    <figure className="bp-chart">
      <div role="img" aria-label={label}>
        <UPlotChart options={plot.options} data={plot.data} />
      </div>
      <figcaption>
        <ul className="bp-chart__legend">
          {spec.series.map((s, i) => (
            <li key={s.label} className="bp-chart__key">
              <span
                className="bp-chart__swatch"
                style={{ background: SERIES_COLORS[i % SERIES_COLORS.length] }}
                aria-hidden="true"
              />
              <span>{s.label}</span>
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
