// A camera measurement in Chromium (issue 4): the fake camera plays a fingertip video rendered from a
// real PPG recording (brightness falling as blood volume rises, 30 fps, C420); the whole flow runs for
// 2 minutes to a saved measurement whose heart rate is within 2 bpm and rMSSD within 15 % of the values
// from the simultaneous ECG beats over the same stretch. A recording the app itself calls unsteady is
// not kept: the spec measures again (at most 3 times), as a person would, and judges only a result the
// app calls good; every attempt and the final figures are printed (`CAMERA …` lines) and annotated.
// Its own file: the camera flags need their own browser (launchOptions are top level).
//
// It runs in every `npm test`, in the Playwright project `camera` (playwright.config.ts): after every
// other spec has finished (project dependencies), alone (one worker), with no retries and no trace
// recording, so the page keeps its main thread. Why that matters (Chromium 156, this 2-core machine):
// with the renderer's main thread busy, Chromium drops camera frames in runs of 2–8 before the page sees
// them (a diagnostic page with frame numbers stamped into the video, its main thread kept busy
// 35–160 ms at a time, lost 16 % through MediaStreamTrackProcessor, 28 % through
// requestVideoFrameCallback; capture times stay true to the content). A pulse peaking inside such a run
// is timed 10–45 ms off, which rMSSD (≈ 35 ms) cannot absorb: idle runs gave rMSSD −5.5 % and −5.7 %,
// runs beside other test suites +18 … +23 %. packages/hrv marks such pulses untimed; the recorder now
// leaves their intervals out and sends the places as `rr_breaks`, so the server takes no successive
// difference across them (measured on simulated losses: within 10 % of the ECG where uploading every
// interval gave up to +94 %; see capture.test.ts). Lost frames can still make the app call a recording
// unsteady (fewer than 70 % of the pulses usable), hence the second and third attempt.
import { expect, type Page, test } from "@playwright/test";
import { API, type MeasurementList } from "@tonus/contract";
import { tr } from "../support/i18n.ts";
import { expectNoAxeViolations, readDetail, saveAfterRecording, signUp } from "../support/measure.ts";
import { readEcgBeatsS, renderPpgVideo } from "../support/ppg-video.ts";

const BASE_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync"];

// Chromium's fake camera plays this file from its first frame when the page opens the camera.
const video = renderPpgVideo(170);
test.use({
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

/** A line in the run's output as well as an annotation, so the figures of every run can be read back. */
function report(type: string, description: string): void {
  test.info().annotations.push({ type, description });
  process.stdout.write(`CAMERA ${type}: ${description}\n`);
}

test.describe("in Russian", () => {
  test.use({ locale: "ru-RU" });

  test("the recording camera panel passes axe, and Cancel stops the camera", async ({ page, baseURL }) => {
    const t = (key: string, vars?: Record<string, string | number>) => tr("ru", key, vars);
    await signUp(page, baseURL, "camera-axe");
    await page.goto("/measure");
    await page.getByRole("button", { name: t("measure.camera.choose") }).click();
    await expect(page.getByText(t("measure.camera.step_cover"))).toBeVisible();
    await expectNoAxeViolations(page);
    await page.getByRole("button", { name: t("measure.camera.start") }).click();
    // Recording: the ring, the live heart rate and the quality, with the waveform drawing.
    await expect(page.getByRole("progressbar", { name: t("measure.progress.label") })).toBeVisible();
    const bpm = t("measure.units.bpm", { value: "" }).trim();
    await expect(page.getByTestId("live-hr")).toHaveText(new RegExp(`\\d+ ${bpm}`), { timeout: 30_000 });
    await expectNoAxeViolations(page);
    // Keep the page's camera stream so its tracks can be read after the panel has gone.
    const tracksLive = () =>
      page.evaluate(() => {
        const held = window as unknown as { heldStream?: MediaStream };
        held.heldStream ??= document.querySelector("video")?.srcObject as MediaStream;
        return held.heldStream.getVideoTracks().map((track) => track.readyState === "live");
      });
    expect(await tracksLive()).toEqual([true]);
    await page.getByRole("button", { name: t("measure.cancel") }).click();
    // Back to the three ways in, nothing saved, the camera released.
    await expect(page.getByRole("button", { name: t("measure.camera.choose") })).toBeVisible();
    expect(await tracksLive()).toEqual([false]);
    await expect(page.locator("video")).toHaveCount(0);
    const list = await page.request.get(API.measurements);
    expect(((await list.json()) as MeasurementList).count).toBe(0);
    await expectNoAxeViolations(page);
  });
});

test.describe("in English", () => {
  test.use({ locale: "en-US" });

  test("2 minutes on the fake camera give the ECG's heart rate and rMSSD", async ({ page, baseURL }) => {
    await measureAgainstEcg(page, baseURL);
  });
});

async function measureAgainstEcg(page: Page, baseURL: string | undefined): Promise<void> {
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
    if (await saveTitle.isVisible()) {
      report("attempt", `${attempt} called good`);
      break;
    }
    report("attempt", `${attempt} called unsteady by the app`);
    expect(attempt, "three recordings in a row were called unsteady (frames lost)").toBeLessThan(3);
    await again.click();
  }
  await saveAfterRecording(page, "en", "e2e-camera");

  const detail = await readDetail(page);
  expect(detail.source).toBe("camera");
  expect(detail.tags).toEqual(["e2e-camera"]);
  expect(detail.feel).toBe(4);
  const reference = ecgReference(detail.rr_ms);
  const hr = detail.heart_rate ?? 0;
  const rmssd = detail.rmssd ?? 0;
  report(
    "vs ECG",
    JSON.stringify({
      heartRate: round(hr),
      ecgHeartRate: round(reference.hrBpm),
      rmssd: round(rmssd),
      ecgRmssd: round(reference.rmssd),
      rmssdErrorPct: round(((rmssd - reference.rmssd) / reference.rmssd) * 100),
      intervals: detail.rr_ms.length,
      breaks: detail.rr_breaks.length,
      corrected: detail.corrected_beats.length,
      alignmentErrorMs: round(reference.alignmentErrorMs),
    }),
  );
  expect(reference.alignmentErrorMs).toBeLessThan(40);
  expect(Math.abs(hr - reference.hrBpm)).toBeLessThanOrEqual(2);
  expect(Math.abs(rmssd - reference.rmssd) / reference.rmssd).toBeLessThanOrEqual(0.15);
  await expectNoAxeViolations(page);
}

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * The ECG's numbers over the same stretch of the recording: the camera's pulse intervals near each end
 * are aligned to the ECG's RR intervals (the video starts when the page opens the camera, the recording
 * a moment later, and a second attempt may start further on; left-out intervals make the upload shorter
 * than the time it covers, so each end is found on its own), then heart rate (mean of 60000/RR, as the
 * server reports it) and rMSSD over the ECG beats between.
 */
function ecgReference(rrMs: number[]): { hrBpm: number; rmssd: number; alignmentErrorMs: number } {
  const beatsS = readEcgBeatsS();
  const ecgRr = beatsS.slice(1).map((s, i) => (s - (beatsS[i] ?? 0)) * 1000);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const head = align(rrMs.slice(2, 62), ecgRr);
  const tail = align(rrMs.slice(-62, -2), ecgRr);
  const startS = (beatsS[head.k] ?? 0) - sum(rrMs.slice(0, 2)) / 1000;
  const endS = (beatsS[tail.k + 60] ?? 0) + sum(rrMs.slice(-2)) / 1000;
  const window = beatsS.filter((s) => s >= startS - 0.2 && s <= endS + 0.2);
  const rr = window.slice(1).map((s, i) => (s - (window[i] ?? 0)) * 1000);
  const hrBpm = rr.reduce((total, x) => total + 60000 / x, 0) / rr.length;
  const diffs = rr.slice(1).map((x, i) => (x - (rr[i] ?? 0)) ** 2);
  const rmssd = Math.sqrt(sum(diffs) / diffs.length);
  return { hrBpm, rmssd, alignmentErrorMs: Math.max(head.error, tail.error) };
}

/** Where `probe` (60 intervals) fits the ECG's intervals best: the median error, so a few missed or extra pulses do not move it. */
function align(probe: number[], ecgRr: number[]): { k: number; error: number } {
  let best = { k: 0, error: Number.POSITIVE_INFINITY };
  for (let k = 0; k + probe.length < ecgRr.length; k++) {
    const errors = probe.map((rr, j) => Math.abs(rr - (ecgRr[k + j] ?? 0))).sort((a, b) => a - b);
    const error = errors[errors.length >> 1] ?? Number.POSITIVE_INFINITY;
    if (error < best.error) best = { k, error };
  }
  return best;
}
