// Artifact detection (Lipponen & Tarvainen 2019) against annotated truth: MIT-BIH / LTDB beat labels
// (an interval is non-normal when either bounding beat is not N) and the synthetic files' listed
// positions. Goals: ≥ 95 % of non-normal intervals flagged; ≤ 1 % of normal ones on clean records.
import { describe, expect, it } from "vitest";
import { analyzeRr, correctArtifacts } from "../src/index.ts";
import { readRr, readRrRows } from "./load.ts";

const syntheticTruth: Record<string, number[]> = {
  syn03_ectopic: [60, 61, 150, 151, 240, 241],
  syn04_missed_extra_outlier: [100, 199, 200, 251],
};

function truthOf(name: string): Set<number> {
  const listed = syntheticTruth[name];
  if (listed) return new Set(listed);
  const rows = readRrRows(name);
  const annotated = (r: (typeof rows)[number]) =>
    r.startBeat !== undefined && (r.startBeat !== "N" || r.endBeat !== "N");
  return new Set(rows.flatMap((r, i) => (annotated(r) ? [i] : [])));
}

function score(name: string) {
  const rr = Float64Array.from(readRr(name));
  const truth = truthOf(name);
  const flagged = new Set(correctArtifacts(rr).flags.map((f) => f.index));
  const hits = [...truth].filter((i) => flagged.has(i)).length;
  const falseFlags = [...flagged].filter((i) => !truth.has(i)).length;
  return { truth: truth.size, hits, falseFlags, normal: rr.length - truth.size };
}

describe("correctArtifacts", () => {
  it.each([
    "mitdb_100_full",
    "mitdb_100_first5min",
    "ltdb_14046_pvc_5min",
    "syn03_ectopic",
    "syn04_missed_extra_outlier",
  ])("flags at least 95 percent of the non-normal intervals of %s", (name) => {
    const s = score(name);
    expect(s.truth).toBeGreaterThan(0);
    expect(s.hits / s.truth).toBeGreaterThanOrEqual(0.95);
  });

  it.each([
    "ltdb_14046_clean_5min",
    "ltdb_14157_clean_5min",
    "ltdb_14172_clean_5min",
    "syn01_sine_clean",
    "syn02_sine_noise",
    "syn05_constant_800",
    "nk_bio_resting_8min_100hz_ecg",
    "mitdb_100_full",
  ])("flags at most 1 percent of the normal intervals of %s", (name) => {
    const s = score(name);
    expect(s.falseFlags / s.normal).toBeLessThanOrEqual(0.01);
  });

  it("names the missed, extra and outlier intervals of syn04 and restores the interval count", () => {
    const rr = Float64Array.from(readRr("syn04_missed_extra_outlier"));
    const result = correctArtifacts(rr);
    expect(result.flags).toEqual([
      { index: 100, type: "missed" },
      { index: 199, type: "extra" },
      { index: 200, type: "extra" },
      { index: 251, type: "long_short" },
    ]);
    // one interval split, two merged: the count is unchanged and every value is near the local rhythm
    expect(result.nn).toHaveLength(rr.length);
    expect(Math.max(...result.nn)).toBeLessThan(1200);
    expect(Math.min(...result.nn)).toBeGreaterThan(850);
  });

  it("brings the rMSSD of syn03 back to that of the series the ectopic beats were added to", () => {
    const clean = analyzeRr(readRr("syn02_sine_noise")).raw?.timeDomain.rmssd ?? 0;
    const result = analyzeRr(readRr("syn03_ectopic"));
    expect(result.raw?.timeDomain.rmssd).toBeGreaterThan(2 * clean);
    expect(result.corrected?.timeDomain.rmssd).toBeGreaterThan(0.9 * clean);
    expect(result.corrected?.timeDomain.rmssd).toBeLessThan(1.1 * clean);
    expect(result.artifacts?.counts.ectopic).toBeGreaterThan(0);
  });

  it("reports flag indices against the input as given when invalid values were dropped", () => {
    const rr = readRr("syn04_missed_extra_outlier");
    const withGarbage = [Number.NaN, ...rr.slice(0, 150), -1, ...rr.slice(150)];
    const result = analyzeRr(withGarbage);
    expect(result.artifacts?.flags.map((f) => f.index)).toEqual([101, 201, 202, 253]);
  });

  it("leaves a clean record alone: no flags and no corrected metrics", () => {
    const result = analyzeRr(readRr("syn01_sine_clean"));
    expect(result.artifacts).toEqual({
      share: 0,
      counts: { ectopic: 0, missed: 0, extra: 0, long_short: 0 },
      flags: [],
    });
    expect(result.corrected).toBeUndefined();
  });

  it("returns too_many_artifacts above the documented share and still reports both series", () => {
    const result = analyzeRr(readRr("welltory_7e91ff2deb"));
    const issue = result.issues.find((i) => i.code === "too_many_artifacts");
    expect(issue).toMatchObject({ threshold: 0.1 });
    expect(result.artifacts?.share).toBeGreaterThan(0.1);
    expect(result.corrected).toBeDefined();
    const lenient = analyzeRr(readRr("welltory_7e91ff2deb"), { maxArtifactShare: 0.5 });
    expect(lenient.issues.map((i) => i.code)).not.toContain("too_many_artifacts");
  });

  it.each(["mitdb_100_full", "mitdb_100_first5min", "ltdb_14046_pvc_5min"])(
    "brings RMSSD and SDNN of %s close to those of its annotated normal intervals alone",
    (name) => {
      const rows = readRrRows(name);
      const normal = rows.map((r) => r.startBeat === "N" && r.endBeat === "N");
      // Reference: SDNN over normal intervals; RMSSD over differences of adjacent normal intervals.
      const nn = rows.filter((_, i) => normal[i]).map((r) => r.rr);
      const mean = nn.reduce((a, b) => a + b, 0) / nn.length;
      const sdnn = Math.sqrt(nn.reduce((a, b) => a + (b - mean) ** 2, 0) / (nn.length - 1));
      let sum = 0;
      let count = 0;
      for (let i = 1; i < rows.length; i++) {
        if (!normal[i] || !normal[i - 1]) continue;
        sum += ((rows[i]?.rr ?? 0) - (rows[i - 1]?.rr ?? 0)) ** 2;
        count++;
      }
      const rmssd = Math.sqrt(sum / count);
      const result = analyzeRr(rows.map((r) => r.rr));
      // raw is far off (measured up to 3×); corrected within 7 % (RMSSD) and 1 % (SDNN)
      expect(result.raw?.timeDomain.rmssd).toBeGreaterThan(1.5 * rmssd);
      expect(Math.abs((result.corrected?.timeDomain.rmssd ?? 0) / rmssd - 1)).toBeLessThan(0.1);
      expect(Math.abs((result.corrected?.timeDomain.sdnn ?? 0) / sdnn - 1)).toBeLessThan(0.03);
    },
  );
});
