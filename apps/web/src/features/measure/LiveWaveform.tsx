import { useEffect, useRef } from "react";

const DRAW_EVERY_MS = 50;

/**
 * The live pulse wave on a canvas, redrawn every animation frame from `read` (which fills the buffer
 * and returns how many samples it wrote). Decorative for screen readers: the heart rate next to it is
 * the accessible reading.
 */
export function LiveWaveform({
  read,
  samples = 150,
}: {
  read: (out: Float32Array) => number;
  samples?: number;
}) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const readRef = useRef(read);
  readRef.current = read;

  useEffect(() => {
    const buffer = new Float32Array(samples);
    let handle = 0;
    let lastDrawMs = 0;
    const draw = (nowMs: number) => {
      handle = requestAnimationFrame(draw);
      // 20 redraws a second look smooth and leave the CPU to the frame sampling.
      if (nowMs - lastDrawMs < DRAW_EVERY_MS) return;
      lastDrawMs = nowMs;
      const canvas = canvasRef.current;
      const context = canvas?.getContext("2d");
      if (canvas && context) {
        const count = readRef.current(buffer);
        const { width, height } = canvas;
        context.clearRect(0, 0, width, height);
        if (count > 1) {
          let min = Number.POSITIVE_INFINITY;
          let max = Number.NEGATIVE_INFINITY;
          for (let i = 0; i < count; i++) {
            min = Math.min(min, buffer[i] ?? 0);
            max = Math.max(max, buffer[i] ?? 0);
          }
          const span = max - min || 1;
          context.strokeStyle = "#0f766e";
          context.lineWidth = 2;
          context.beginPath();
          for (let i = 0; i < count; i++) {
            const x = (i / (samples - 1)) * width;
            const y = height - 4 - (((buffer[i] ?? 0) - min) / span) * (height - 8);
            if (i === 0) context.moveTo(x, y);
            else context.lineTo(x, y);
          }
          context.stroke();
        }
      }
    };
    handle = requestAnimationFrame(draw);
    return () => cancelAnimationFrame(handle);
  }, [samples]);

  return (
    <canvas
      ref={canvasRef}
      className="live-waveform"
      width={300}
      height={80}
      tabIndex={-1}
      aria-hidden="true"
    />
  );
}
