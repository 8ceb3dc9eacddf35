import { describe, expect, it } from "vitest";
import { analyzePpg, createPpgStream, fingerOnLens } from "../src/ppg/index.ts";
import {
  cameraFrames,
  ecgBeatsMs,
  intervals,
  matchBeats,
  oximeterSamples,
  RECORDINGS,
  random,
  rmssd,
} from "./ppg-camera.ts";

describe("analyzePpg on camera-like frames of real recordings", () => {
  it("matches the ECG beats of nk_bio_resting_5min at 30 fps with jittered frame times", () => {
    const rec = RECORDINGS.nk_bio_resting_5min;
    const ecg = ecgBeatsMs(rec);
    const rr = intervals(ecg);
    const hrEcg = 60000 / (rr.reduce((a, b) => a + b, 0) / rr.length);
    for (const seed of [1, 2, 3]) {
      const { values, times } = cameraFrames(rec, { seed, jitterMs: 8, dropRate: 0.01 });
      const r = analyzePpg(values, times);
      const m = matchBeats(
        ecg,
        r.beats.map((b) => b.timeMs),
      );
      expect(m.matchedShare).toBeGreaterThanOrEqual(0.98);
      expect(m.intervalMaeMs).toBeLessThanOrEqual(8);
      expect(r.rmssdMs).toBeDefined();
      expect(Math.abs((r.rmssdMs ?? 0) / rmssd(rr) - 1)).toBeLessThanOrEqual(0.1);
      expect(Math.abs((r.hrBpm ?? 0) - hrEcg)).toBeLessThanOrEqual(1);
      expect(r.fingerPresent).toBe(true);
      expect(r.issues.map((i) => i.code)).not.toContain("poor_signal");
      expect(r.goodShare).toBeGreaterThan(0.95);
    }
  });

  it("reads an oximeter pleth at its own rate with polarity oximeter", () => {
    const rec = RECORDINGS.nk_bio_resting_5min;
    const { values, times } = oximeterSamples(rec);
    const r = analyzePpg(values, times, { polarity: "oximeter" });
    expect(r.sampleRateHz).toBeCloseTo(100, 6);
    const ecg = ecgBeatsMs(rec);
    const m = matchBeats(
      ecg,
      r.beats.map((b) => b.timeMs),
    );
    expect(m.matchedShare).toBeGreaterThanOrEqual(0.98);
    const rr = intervals(ecg);
    expect(Math.abs((r.hrBpm ?? 0) - 60000 / (rr.reduce((a, b) => a + b, 0) / rr.length))).toBeLessThan(1);
  });

  it("reports heart rate within 1 bpm on the ICU record cinc2015_a103l (HR ≈ 127)", () => {
    const rec = RECORDINGS.cinc2015_a103l;
    const rr = intervals(ecgBeatsMs(rec));
    const r = analyzePpg(cameraFrames(rec).values, cameraFrames(rec).times);
    expect(Math.abs((r.hrBpm ?? 0) - 60000 / (rr.reduce((a, b) => a + b, 0) / rr.length))).toBeLessThan(1);
    expect(
      matchBeats(
        ecgBeatsMs(rec),
        r.beats.map((b) => b.timeMs),
      ).matchedShare,
    ).toBeGreaterThanOrEqual(0.98);
  });

  it("flags the artefact stretches of bidmc_01 (around 45 s and 90–105 s) instead of reporting them", () => {
    const { values, times } = cameraFrames(RECORDINGS.bidmc_01);
    const r = analyzePpg(values, times);
    const covers = (t: number) => r.badSegments.some((s) => s.startMs <= t && s.endMs >= t);
    expect(covers(44_000)).toBe(true);
    expect(covers(95_000)).toBe(true);
    expect(covers(102_000)).toBe(true);
    expect(r.issues.map((i) => i.code)).toContain("artifacts");
    // Raw pulse intervals across the artefacts would give an rMSSD of over 100 ms; the ECG's is ≈ 20 ms.
    expect(rmssd(r.ppMs)).toBeGreaterThan(100);
    const ecgRmssd = rmssd(intervals(ecgBeatsMs(RECORDINGS.bidmc_01)));
    expect(r.rmssdMs).toBeLessThan(ecgRmssd * 1.5);
  });

  it("leaves out the pulse-less premature beats of wfdb_mixedsignals", () => {
    const { values, times } = cameraFrames(RECORDINGS.wfdb_mixedsignals);
    const r = analyzePpg(values, times);
    const sorted = [...r.ppMs].sort((a, b) => a - b);
    const median = sorted[sorted.length >> 1] ?? 0;
    const long = r.ppMs.map((pp, i) => ({ pp, usable: r.ppUsable[i] })).filter((x) => x.pp > 1.3 * median);
    expect(long.length).toBeGreaterThanOrEqual(8);
    expect(long.every((x) => x.usable === false)).toBe(true);
    expect(r.badSegments.length).toBeGreaterThanOrEqual(8);
    const ecgRmssd = rmssd(intervals(ecgBeatsMs(RECORDINGS.wfdb_mixedsignals)));
    expect(r.rmssdMs).toBeLessThan(ecgRmssd * 1.5);
  });
});

describe("analyzePpg on dirty input", () => {
  const clock = (n: number, fps = 30) => Array.from({ length: n }, (_, i) => (i * 1000) / fps);

  it("returns too_short and poor_signal for empty input", () => {
    const r = analyzePpg([], []);
    expect(r.beats).toEqual([]);
    expect(r.hrBpm).toBeUndefined();
    expect(r.issues.map((i) => i.code)).toEqual(["too_short", "poor_signal"]);
  });

  it("returns too_short for 5 s of frames", () => {
    const t = clock(150);
    const r = analyzePpg(
      t.map((x) => Math.sin((2 * Math.PI * x) / 1000)),
      t,
    );
    expect(r.issues[0]).toMatchObject({ code: "too_short" });
  });

  it("drops non-finite values and out-of-order frames and says how many", () => {
    const { values, times } = cameraFrames(RECORDINGS.nk_bio_resting_5min, { seed: 4 });
    values[100] = Number.NaN;
    times[200] = times[199] ?? 0;
    const r = analyzePpg(values, times);
    expect(r.issues).toContainEqual({ code: "dropped_frames", count: 2 });
    expect(r.hrBpm).toBeDefined();
  });

  it("reports length_mismatch and uses the common prefix", () => {
    const { values, times } = cameraFrames(RECORDINGS.nk_bio_resting_5min);
    const r = analyzePpg(values, times.slice(0, 900));
    expect(r.issues.map((i) => i.code)).toContain("length_mismatch");
    expect(r.beats.length).toBeGreaterThan(30);
  });

  it("leaves pulses that peak in a hole of two or more missing frames untimed, and only those", () => {
    const rec = RECORDINGS.nk_bio_resting_5min;
    const ecg = ecgBeatsMs(rec);
    const { values, times } = cameraFrames(rec, { seed: 9, dropRate: 0 });
    const full = analyzePpg(values, times);
    // Take out the 3 frames nearest every 4th pulse's peak, and the 1 frame nearest every 4th after it.
    const peaks = full.beats.map((b) => b.timeMs);
    const step = 1000 / 30;
    const nearest = (t: number, count: number) =>
      times
        .map((time, i) => ({ i, d: Math.abs(time - t) }))
        .sort((a, b) => a.d - b.d)
        .slice(0, count)
        .map((x) => x.i);
    const holes = peaks.filter((_, i) => i % 4 === 0);
    const dropped = new Set([
      ...holes.flatMap((t) => nearest(t, 3)),
      ...peaks.filter((_, i) => i % 4 === 2).flatMap((t) => nearest(t, 1)),
    ]);
    const r = analyzePpg(
      values.filter((_, i) => !dropped.has(i)),
      times.filter((_, i) => !dropped.has(i)),
    );
    expect(r.issues.find((i) => i.code === "frame_gaps")?.count).toBe(holes.length);
    expect(r.ppTimed).toHaveLength(r.ppMs.length);
    // Every interval ending or starting at a pulse in a hole is untimed and unusable; none other is.
    const inHole = r.beats.map((b) => peaks.some((p, i) => i % 4 === 0 && Math.abs(p - b.timeMs) < 2 * step));
    r.ppTimed.forEach((timed, i) => {
      expect(timed).toBe(!inHole[i] && !inHole[i + 1]);
      if (!timed) expect(r.ppUsable[i]).toBe(false);
    });
    // The pulses outside the holes keep their precision against the ECG.
    expect(r.ppTimed.filter(Boolean).length).toBeGreaterThan(r.ppMs.length * 0.4);
    const m = matchBeats(
      ecg,
      r.beats.filter((_, i) => !inHole[i]).map((b) => b.timeMs),
    );
    expect(m.intervalMaeMs).toBeLessThanOrEqual(8);
  });

  it("does not use intervals that span a hole in the frame times", () => {
    const { values, times } = cameraFrames(RECORDINGS.nk_bio_resting_5min, { seed: 5 });
    const keep = times.map((t) => t < 60_000 || t > 61_500);
    const r = analyzePpg(
      values.filter((_, i) => keep[i]),
      times.filter((_, i) => keep[i]),
    );
    expect(r.issues).toContainEqual({ code: "frame_gaps", count: 1 });
    const spanning = r.ppMs
      .map((_, i) => i)
      .filter((i) => (r.beats[i]?.timeMs ?? 0) < 61_500 && (r.beats[i + 1]?.timeMs ?? 0) > 60_000);
    expect(spanning.length).toBeGreaterThan(0);
    for (const i of spanning) expect(r.ppUsable[i]).toBe(false);
    expect(r.hrBpm).toBeDefined();
  });

  it("refuses more than an hour of frames (timestamps in the wrong unit) with too_long", () => {
    const t = clock(900).map((x) => x * 1000);
    const r = analyzePpg(
      t.map((x) => Math.sin(x)),
      t,
    );
    expect(r.issues.map((i) => i.code)).toEqual(["too_long", "poor_signal"]);
    expect(r.beats).toEqual([]);
  });

  it("reports clipped_signal when the camera saturates", () => {
    const { values, times } = cameraFrames(RECORDINGS.nk_bio_resting_5min);
    const r = analyzePpg(
      values.map((v) => Math.min(v, 195)),
      times,
    );
    const clipped = r.issues.find((i) => i.code === "clipped_signal");
    expect(clipped?.share).toBeGreaterThan(0.05);
    expect(analyzePpg(values, times).issues.map((i) => i.code)).not.toContain("clipped_signal");
  });

  it("reports no_finger and poor_signal for noise with no pulse wave", () => {
    const rnd = random(7);
    const t = clock(1800);
    const r = analyzePpg(
      t.map(() => 120 + rnd() * 20),
      t,
    );
    expect(r.fingerPresent).toBe(false);
    expect(r.issues.map((i) => i.code)).toEqual(expect.arrayContaining(["no_finger", "poor_signal"]));
    expect(r.hrBpm).toBeUndefined();
    expect(r.rmssdMs).toBeUndefined();
  });

  it("reports no_finger for a constant frame", () => {
    const t = clock(900);
    const r = analyzePpg(
      t.map(() => 200),
      t,
    );
    expect(r.fingerPresent).toBe(false);
    expect(r.hrBpm).toBeUndefined();
  });

  it("reports low_frame_rate below 10 fps", () => {
    const t = clock(120, 5);
    const r = analyzePpg(
      t.map((x) => Math.sin((2 * Math.PI * x) / 1000)),
      t,
    );
    expect(r.issues.map((i) => i.code)).toContain("low_frame_rate");
    expect(r.beats).toEqual([]);
  });

  it("times pulses below one frame: a 72-bpm sine at 30 fps gives 833.3 ms intervals", () => {
    const t = clock(900).map((x, i) => x + (i % 3) - 1);
    const r = analyzePpg(
      t.map((x) => -Math.sin((2 * Math.PI * x) / (60000 / 72))),
      t,
    );
    const inner = r.ppMs.slice(2, -2);
    for (const pp of inner) expect(Math.abs(pp - 60000 / 72)).toBeLessThan(3);
    expect(r.rmssdMs).toBeLessThan(2);
  });
});

describe("createPpgStream", () => {
  it("tracks heart rate and beats live on nk_bio_resting_5min", () => {
    const rec = RECORDINGS.nk_bio_resting_5min;
    const { values, times } = cameraFrames(rec);
    const rr = intervals(ecgBeatsMs(rec));
    const hrEcg = 60000 / (rr.reduce((a, b) => a + b, 0) / rr.length);
    const stream = createPpgStream();
    const hrs: number[] = [];
    for (let i = 0; i < values.length; i++) {
      if (stream.push(values[i] ?? 0, times[i] ?? 0) && stream.hrBpm !== undefined) hrs.push(stream.hrBpm);
    }
    expect(stream.beatCount).toBeGreaterThanOrEqual(425);
    expect(stream.beatCount).toBeLessThanOrEqual(435);
    hrs.sort((a, b) => a - b);
    expect(Math.abs((hrs[hrs.length >> 1] ?? 0) - hrEcg)).toBeLessThan(2);
    expect(stream.pulseDetected).toBe(true);
    const wave = new Float32Array(60);
    expect(stream.waveform(wave)).toBe(60);
    expect(Math.max(...wave)).toBeGreaterThan(0);
  });

  it("starts over after a pause of more than 2 s", () => {
    const { values, times } = cameraFrames(RECORDINGS.nk_bio_resting_5min);
    const stream = createPpgStream();
    for (let i = 0; i < 600; i++) stream.push(values[i] ?? 0, times[i] ?? 0);
    expect(stream.beatCount).toBeGreaterThan(10);
    stream.push(values[600] ?? 0, 3_600_000);
    expect(stream.beatCount).toBe(0);
    expect(stream.hrBpm).toBeUndefined();
  });

  it("ignores bad frames, reports no pulse on noise and forgets on reset", () => {
    const stream = createPpgStream();
    const rnd = random(3);
    expect(stream.push(Number.NaN, 0)).toBe(false);
    for (let i = 0; i < 300; i++) stream.push(100 + rnd(), i * 33.3);
    expect(stream.push(100, 10)).toBe(false);
    expect(stream.pulseDetected).toBe(false);
    stream.reset();
    expect(stream.beatCount).toBe(0);
    expect(stream.hrBpm).toBeUndefined();
    expect(stream.waveform(new Float64Array(10))).toBe(0);
  });
});

describe("fingerOnLens", () => {
  it("accepts a red, flash-lit fingertip and rejects a room scene, darkness and bad values", () => {
    expect(fingerOnLens({ r: 190, g: 20, b: 15 })).toBe(true);
    expect(fingerOnLens({ r: 120, g: 110, b: 100 })).toBe(false);
    expect(fingerOnLens({ r: 30, g: 5, b: 5 })).toBe(false);
    expect(fingerOnLens({ r: Number.NaN, g: 0, b: 0 })).toBe(false);
  });
});
