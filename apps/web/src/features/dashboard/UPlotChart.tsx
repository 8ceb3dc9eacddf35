import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

/** Canvas drawing is missing in some locked-down browsers (and in test DOMs): the text alternative then stands alone. */
function canDrawCanvas(): boolean {
  try {
    return document.createElement("canvas").getContext("2d") !== null;
  } catch {
    return false;
  }
}

/**
 * A uPlot chart that follows its container's width. It is drawn on a canvas, which says nothing to a
 * screen reader, so the host is hidden from assistive technology: every chart ships a text summary and
 * a table beside it. uPlot draws without animation, so reduced-motion settings have nothing to stop.
 */
export function UPlotChart({
  options,
  data,
  onCursor,
  onDrawn,
}: {
  options: Omit<uPlot.Options, "width">;
  data: uPlot.AlignedData;
  /** The hovered bucket's index, or null when the pointer leaves. */
  onCursor?: (index: number | null) => void;
  /** Called once the chart has been drawn (for performance marks). */
  onDrawn?: () => void;
}) {
  const hostRef = useRef<HTMLDivElement>(null);
  const onCursorRef = useRef(onCursor);
  onCursorRef.current = onCursor;
  const onDrawnRef = useRef(onDrawn);
  onDrawnRef.current = onDrawn;
  const [isSupported] = useState(canDrawCanvas);

  useEffect(() => {
    const host = hostRef.current;
    if (!host || !isSupported) return;
    let hasDrawn = false;
    let plot: uPlot | null = null;
    // The plot is made in the first resize observation, which brings the width without a layout
    // read: a dozen charts appearing together then cost one layout, not one each.
    const observer = new ResizeObserver((entries) => {
      const width = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (width <= 0) return;
      if (plot) {
        if (width !== plot.width) plot.setSize({ width, height: options.height });
        return;
      }
      plot = new uPlot(
        {
          ...options,
          width,
          hooks: {
            ...options.hooks,
            setCursor: [(u) => onCursorRef.current?.(u.cursor.idx ?? null)],
            draw: [
              () => {
                if (hasDrawn) return;
                hasDrawn = true;
                onDrawnRef.current?.();
              },
            ],
          },
        },
        data,
        host,
      );
    });
    observer.observe(host);
    return () => {
      observer.disconnect();
      plot?.destroy();
    };
  }, [options, data, isSupported]);

  if (!isSupported) return null;
  return <div ref={hostRef} className="chart-plot" aria-hidden="true" />;
}
