// A camera measurement in Chromium (issue 4): the fake camera plays a fingertip video rendered from a
// real PPG recording (brightness falling as blood volume rises, 30 fps, C420); the whole flow runs for
// 2 minutes to a saved measurement whose heart rate is within 2 bpm and rMSSD within 15 % of the values
// from the simultaneous ECG beats over the same stretch. A recording the app itself calls unsteady is
// not kept: the spec measures again (at most 3 times), as a person would, and judges only a result the
// app calls good. Its own file: the camera flags need their own browser (launchOptions are top level).
//
// Opt-in (TONUS_E2E_CAMERA=1), because it is not reliable on a loaded machine. What was measured
// (Chromium 156, this 2-core machine; figures app vs ECG):
// - Idle (load < 1), two runs: HR 86.8 and 86.7 vs 86.7 bpm, rMSSD −5.5 % and −5.7 % (32.7, 32.6 vs
//   34.6 ms); a diagnostic page reading the same fake camera saw every frame, with capture times 0.2 ms
//   (sd) off the frames' content clock.
// - Busy machine, page steady (load 4–19: four CPU burners and the other engineers' tests): six runs
//   passed at the first attempt, rMSSD −0.9 %, +1.8 %, +8.5 %, +9.3 %, +10.8 % and −1.6 %, HR within 1 bpm.
// - Page starved (load 13–20 with bursts of test runs): two runs in a row were called unsteady by the app
//   (HR 84.4 and 84.9 vs 86.7, rMSSD 59.8 and 46.5 vs 34.5 ms).
// The cause is frames lost before the page sees them: with the renderer's main thread busy, Chromium
// drops camera frames in runs of 2–8 (a diagnostic page with frame numbers stamped into the video, its
// main thread kept busy 35–160 ms at a time: 16 % lost through MediaStreamTrackProcessor, 28 % through
// requestVideoFrameCallback; 31 % and 43 % at 60–260 ms; a worker does not help, Chromium 156 cannot
// transfer the track and the frames still pass the main thread; capture times stay true to the
// content). A pulse peaking inside such a run is timed 10–45 ms off, which rMSSD (≈ 35 ms) cannot
// absorb. The app now reads frames through MediaStreamTrackProcessor (fewer lost), and packages/hrv
// marks pulses timed across lost frames as unusable, so such a recording is called unsteady instead
// of passing as good; it cannot, however, restore the frames, so under heavy load the spec can still
// fail after three unsteady attempts.
import { expect, test } from "@playwright/test";
import { tr } from "../support/i18n.ts";
import { expectNoAxeViolations, readDetail, saveAfterRecording, signUp } from "../support/measure.ts";
import { readEcgBeatsS, renderPpgVideo } from "../support/ppg-video.ts";

const BASE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync"];

const isEnabled = process.env.TONUS_E2E_CAMERA === "1";
test.skip(!isEnabled, "opt-in: set TONUS_E2E_CAMERA=1 (needs an unloaded machine)");
// Chromium's fake camera plays this file from its first frame when the page opens the camera.
const video = isEnabled ? renderPpgVideo(170) : "";
test.use({
  locale: "en-US",
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      ...BASE_ARGS,
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-video-capture=${video}`,
      "--use-fake-ui-for-media-stream",
    ],
  },
});

test("2 minutes on the fake camera give the ECG's heart rate and rMSSD", async ({ page, baseURL }) => {
  test.setTimeout(720_000);
  const t = (key: string, vars?: Record<string, string | number>) => tr("en", key, vars);
  await signUp(page, baseURL, "camera");
  await page.goto("/measure");
  await page.getByRole("button", { name: t("measure.camera.choose") }).click();
  await expect(page.getByText(t("measure.camera.step_cover"))).toBeVisible();
  await expectNoAxeViolations(page);
  const saveTitle = page.getByRole("heading", { level: 2, name: t("measure.save.title") });
  const again = page.getByRole("button", { name: t("measure.measure_again") });
  for (let attempt = 1; ; attempt++) {
    await page.getByRole("button", { name: t("measure.camera.start") }).click();
    await expect(page.getByRole("progressbar", { name: t("measure.progress.label") })).toBeVisible();
    await expect(page.getByTestId("live-hr")).toHaveText(/\d+ bpm/, { timeout: 30_000 });
    await expect(page.getByText(t("measure.live.quality_good"))).toBeVisible({ timeout: 30_000 });
    // No axe scan while recording: it would hold the page's main thread and cost camera frames.
    await expect(saveTitle.or(again)).toBeVisible({ timeout: 180_000 });
    if (await saveTitle.isVisible()) break;
    test.info().annotations.push({ type: "camera", description: `attempt ${attempt} called unsteady` });
    expect(attempt, "three recordings in a row were called unsteady (frames lost)").toBeLessThan(3);
    await again.click();
  }
  await saveAfterRecording(page, "en", "e2e-camera");

  const detail = await readDetail(page);
  expect(detail.source).toBe("camera");
  expect(detail.tags).toEqual(["e2e-camera"]);
  expect(detail.feel).toBe(4);
  const reference = ecgReference(detail.rr_ms);
  test.info().annotations.push({
    type: "camera vs ECG",
    description: JSON.stringify({
      heartRate: detail.heart_rate,
      rmssd: detail.rmssd,
      intervals: detail.rr_ms.length,
      corrected: detail.corrected_beats.length,
      reference,
    }),
  });
  expect(reference.alignmentErrorMs).toBeLessThan(40);
  expect(Math.abs((detail.heart_rate ?? 0) - reference.hrBpm)).toBeLessThanOrEqual(2);
  expect(Math.abs((detail.rmssd ?? 0) - reference.rmssd) / reference.rmssd).toBeLessThanOrEqual(0.15);
  await expectNoAxeViolations(page);
});

/**
 * The ECG's numbers over the same stretch of the recording: the camera's pulse intervals are aligned to
 * the ECG's RR intervals (the video starts when the page opens the camera, the recording a moment later,
 * and a second attempt may start further on), then heart rate (mean of 60000/RR, as the server reports
 * it) and rMSSD over the same duration.
 */
function ecgReference(rrMs: number[]): { hrBpm: number; rmssd: number; alignmentErrorMs: number } {
  const beatsS = readEcgBeatsS();
  const ecgRr = beatsS.slice(1).map((s, i) => (s - (beatsS[i] ?? 0)) * 1000);
  // The median error over 60 intervals: a few missed or extra pulses do not move the alignment.
  const probe = rrMs.slice(2, 62);
  let best = { k: 0, error: Number.POSITIVE_INFINITY };
  for (let k = 0; k + probe.length < ecgRr.length; k++) {
    const errors = probe.map((rr, j) => Math.abs(rr - (ecgRr[k + j] ?? 0))).sort((a, b) => a - b);
    const error = errors[errors.length >> 1] ?? Number.POSITIVE_INFINITY;
    if (error < best.error) best = { k, error };
  }
  const startS = (beatsS[best.k] ?? 0) - rrMs.slice(0, 2).reduce((a, b) => a + b, 0) / 1000;
  const endS = startS + rrMs.reduce((a, b) => a + b, 0) / 1000;
  const window = beatsS.filter((s) => s >= startS - 0.2 && s <= endS + 0.2);
  const rr = window.slice(1).map((s, i) => (s - (window[i] ?? 0)) * 1000);
  const hrBpm = rr.reduce((sum, x) => sum + 60000 / x, 0) / rr.length;
  const diffs = rr.slice(1).map((x, i) => (x - (rr[i] ?? 0)) ** 2);
  const rmssd = Math.sqrt(diffs.reduce((a, b) => a + b, 0) / diffs.length);
  return { hrBpm, rmssd, alignmentErrorMs: best.error };
}
