/** Frames the clock fits over (about 2 s at 30 fps). */
const WINDOW = 60;

/**
 * Steadies frame times: a camera produces frames at a steady rate, but the times the page sees carry
 * delivery jitter (and a starved capture thread stamps late frames late). Each frame's time is read
 * off a least-squares line through the last ~2 s of (frame number, time) pairs, so the frame number —
 * which counts skipped frames too — sets the spacing and the jitter averages out. A jump of more than
 * half a second from the line (a stall, a frame-rate change) starts the fit over.
 */
export function createFrameClock() {
  const frames = new Float64Array(WINDOW);
  const times = new Float64Array(WINDOW);
  let count = 0;
  let next = 0;

  return {
    /** The steadied time of frame number `frame` (increasing) captured at `timeMs`. */
    timeOf(frame: number, timeMs: number): number {
      const n = Math.min(count, WINDOW);
      let estimate = timeMs;
      if (n >= 10) {
        let sf = 0;
        let st = 0;
        for (let i = 0; i < n; i++) {
          sf += frames[i] ?? 0;
          st += times[i] ?? 0;
        }
        const mf = sf / n;
        const mt = st / n;
        let sff = 0;
        let sft = 0;
        for (let i = 0; i < n; i++) {
          const df = (frames[i] ?? 0) - mf;
          sff += df * df;
          sft += df * ((times[i] ?? 0) - mt);
        }
        if (sff > 0) estimate = mt + (sft / sff) * (frame - mf);
        if (Math.abs(estimate - timeMs) > 500) {
          count = 0;
          next = 0;
          estimate = timeMs;
        }
      }
      frames[next] = frame;
      times[next] = timeMs;
      next = (next + 1) % WINDOW;
      count++;
      return estimate;
    },
  };
}
