import { describe, expect, it } from "vitest";
import {
  encodeSampleBlocks,
  filterSamples,
  SampleBatchBuilder,
  sampleKeys,
  sampleTransfer,
} from "./dashboard-values.samples.ts";

const DAY = 86_400_000;
const day0 = Date.UTC(2026, 2, 7);

describe("sample batches", () => {
  it("groups samples by source, metric and UTC day, each block ordered by time then key bytes", () => {
    const b = new SampleBatchBuilder();
    b.add("steps", day0 + 5000, 5, "fit", "c", true);
    b.add("steps", day0 + 1000, 1, "fit", "b", false);
    b.add("heart_rate", day0 + 1000, 60, "fit", "h", true);
    b.add("steps", day0 + 1000, 2, "fit", "a", false);
    b.add("steps", day0 + DAY + 1, 9, "fit", "next-day", true);
    b.add("steps", day0 - 1, 8, "fit", "day-before", false);
    b.add("steps", day0 + 1000, 3, "csv", "a", false);
    const batch = b.build();
    expect(
      batch.blocks.map((x) => [x.source, x.metric, new Date(x.day * DAY).toISOString().slice(0, 10)]),
    ).toEqual([
      ["fit", "steps", "2026-03-07"],
      ["fit", "heart_rate", "2026-03-07"],
      ["fit", "steps", "2026-03-08"],
      ["fit", "steps", "2026-03-06"],
      ["csv", "steps", "2026-03-07"],
    ]);
    const first = batch.blocks[0];
    expect(first).toMatchObject({ start: 0, end: 3 });
    expect(sampleKeys(batch)).toEqual(["a", "b", "c", "h", "next-day", "day-before", "a"]);
    expect([...batch.vals]).toEqual([2, 1, 5, 60, 9, 8, 3]);
    expect([...batch.counted]).toEqual([0, 0, 1, 1, 1, 0, 0]);
    expect(batch).toMatchObject({ countedN: 3, repeatedCounted: 0 });
  });

  it("keeps a key repeated within its block once, with its last time and value, counted if either was", () => {
    const b = new SampleBatchBuilder();
    b.add("steps", day0 + 3000, 1, "fit", "k", true);
    b.add("steps", day0 + 2000, 2, "fit", "other", false);
    b.add("steps", day0 + 1000, 7, "fit", "k", false);
    b.add("steps", day0 + 1000, 8, "fit", "k", true);
    // The same key on another day or metric is another sample.
    b.add("steps", day0 + DAY, 3, "fit", "k", false);
    b.add("heart_rate", day0 + 1000, 4, "fit", "k", false);
    expect(b.size).toBe(4);
    const batch = b.build();
    expect(sampleKeys(batch)).toEqual(["k", "other", "k", "k"]);
    expect([...batch.atMs]).toEqual([day0 + 1000, day0 + 2000, day0 + DAY, day0 + 1000]);
    expect([...batch.vals]).toEqual([8, 2, 3, 4]);
    expect([...batch.counted]).toEqual([1, 0, 0, 0]);
    expect(batch).toMatchObject({ countedN: 1, repeatedCounted: 1 });
  });

  it("skips what every write path skips and refuses bad keys", () => {
    const b = new SampleBatchBuilder();
    expect(b.add("steps", Number.NaN, 1, "fit", "x", true)).toBe(false);
    expect(b.add("steps", Date.UTC(20000, 0, 1), 1, "fit", "x", true)).toBe(false);
    expect(b.add("steps", day0, Number.POSITIVE_INFINITY, "fit", "x", true)).toBe(false);
    expect(() => b.add("Steps; drop", day0, 1, "fit", "x", true)).toThrow();
    expect(() => b.add("steps", day0, 1, "A b", "x", true)).toThrow();
    expect(() => b.add("steps", day0, 1, "fit", "nul\u0000", true)).toThrow();
    expect(() => b.add("steps", day0, 1, "fit", "ß then nul\u0000", true)).toThrow();
    expect(b.add("steps", day0, 1, "fit", "ß 😀 \t\\", true)).toBe(true);
    const batch = b.build();
    expect(sampleKeys(batch)).toEqual(["ß 😀 \t\\"]);
    // Emptied: the next batch starts afresh.
    expect(b.build().atMs).toHaveLength(0);
  });

  it("holds thousands of samples and repeats across its table's growth", () => {
    const b = new SampleBatchBuilder();
    for (let round = 0; round < 2; round++)
      for (let i = 0; i < 20_000; i++)
        b.add("heart_rate", day0 + (i % 50) * DAY + i, i + round, "fit", `k${i}`, round === 0);
    const batch = b.build();
    expect(batch.atMs).toHaveLength(20_000);
    expect(batch.blocks).toHaveLength(50);
    expect(batch).toMatchObject({ countedN: 20_000, repeatedCounted: 0 });
    const keys = sampleKeys(batch);
    expect(new Set(keys).size).toBe(20_000);
    // The last value of every key.
    const at = new Map(keys.map((k, e) => [k, batch.vals[e]]));
    expect(at.get("k123")).toBe(124);
    for (const block of batch.blocks)
      for (let e = block.start + 1; e < block.end; e++)
        expect(batch.atMs[e] as number).toBeGreaterThanOrEqual(batch.atMs[e - 1] as number);
  });

  it("encodes PostgreSQL's binary COPY rows and filters a batch", () => {
    const b = new SampleBatchBuilder();
    b.add("steps", day0 + 1, 1.5, "fit", "a", true);
    b.add("steps", -1, -2, "fit", "привет", false);
    const batch = b.build();
    const bytes = encodeSampleBlocks(batch, [0, 1]);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    expect(new TextDecoder().decode(bytes.subarray(0, 6))).toBe("PGCOPY");
    // Two rows of seven fields, then the trailer.
    expect(view.getInt16(19)).toBe(7);
    expect(view.getInt16(bytes.length - 2)).toBe(-1);
    // 1969-12-31 is the day before 1970, which is day -10,958 since 2000.
    const text = new TextDecoder().decode(bytes);
    expect(text).toContain("привет");
    expect(sampleTransfer(batch)).toHaveLength(5);
    const keys = sampleKeys(batch);
    const kept = filterSamples(batch, keys, (e) => keys[e] !== "a");
    expect(sampleKeys(kept)).toEqual(["привет"]);
    expect([...kept.atMs]).toEqual([-1]);
  });
});
