import fs from "node:fs";

/**
 * How far this process's resident memory rose above its level at the start while `work` ran, in bytes.
 * On Linux the kernel's peak (VmHWM) is reset first (`clear_refs` 5), so no spike is missed between
 * samples; elsewhere, and in addition, RSS is sampled every 10 ms (worker threads share the process).
 */
export async function peakRssGrowth(work: () => Promise<void>): Promise<number> {
  globalThis.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  let kernelPeak = false;
  try {
    fs.writeFileSync("/proc/self/clear_refs", "5");
    kernelPeak = true;
  } catch {
    // not Linux, or not allowed: sampling alone
  }
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 10);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  peak = Math.max(peak, process.memoryUsage.rss());
  if (kernelPeak) {
    const kb = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1];
    if (kb) peak = Math.max(peak, Number(kb) * 1024);
  }
  return peak - base;
}
