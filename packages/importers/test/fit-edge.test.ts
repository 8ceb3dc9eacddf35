import { leftOutOf } from "@tonus/contract";
// Hand-built FIT files for the edges of the protocol that real device files do not show (U7): odd header
// sizes, no data, big-endian definitions, a 255-byte field declared as uint16, compressed timestamps.
import { describe, expect, it } from "vitest";
import { chunksOf, collect, FIT_EPOCH_S, FitDecoder, importFit, updateFitCrc } from "../src/index.ts";

type Field = { num: number; size: number; type: number; bytes: number[] };

function header(size: number, dataSize: number): number[] {
  const h = new Array(size).fill(0);
  h[0] = size;
  h[1] = 0x20;
  h[2] = 0x08;
  h[3] = 0x08;
  h[4] = dataSize & 0xff;
  h[5] = (dataSize >> 8) & 0xff;
  h[6] = (dataSize >> 16) & 0xff;
  h[7] = (dataSize >>> 24) & 0xff;
  h[8] = 0x2e;
  h[9] = 0x46;
  h[10] = 0x49;
  h[11] = 0x54;
  return h;
}

function definition(local: number, global: number, fields: Field[], bigEndian = false): number[] {
  const g = bigEndian ? [(global >> 8) & 0xff, global & 0xff] : [global & 0xff, (global >> 8) & 0xff];
  return [
    0x40 | local,
    0,
    bigEndian ? 1 : 0,
    ...g,
    fields.length,
    ...fields.flatMap((f) => [f.num, f.size, f.type]),
  ];
}

function data(local: number, fields: Field[]): number[] {
  return [local, ...fields.flatMap((f) => f.bytes)];
}

function fitFile(records: number[], headerSize = 14): Uint8Array {
  const bytes = [...header(headerSize, records.length), ...records];
  const crc = updateFitCrc(0, new Uint8Array(bytes));
  return new Uint8Array([...bytes, crc & 0xff, crc >> 8]);
}

const le32 = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff];
const ts = (unixS: number) => le32(unixS - FIT_EPOCH_S);
const T0 = Date.UTC(2024, 1, 1, 7) / 1000;

function hrRecord(unixS: number, bpm: number): Field[] {
  return [
    { num: 253, size: 4, type: 0x86, bytes: ts(unixS) },
    { num: 3, size: 1, type: 0x02, bytes: [bpm] },
  ];
}

async function importBytes(bytes: Uint8Array, chunk = 3) {
  const session = importFit(chunksOf(bytes, chunk));
  const records = await collect(session.records);
  return { records, report: session.report };
}

describe("FIT protocol edges", () => {
  it.each([12, 14, 255])("reads a file whose header is %i bytes", async (size) => {
    const fields = hrRecord(T0, 61);
    const file = fitFile([...definition(0, 20, fields), ...data(0, fields)], size);
    const { records, report } = await importBytes(file);
    expect(report.fatal).toBeUndefined();
    expect(records).toEqual([expect.objectContaining({ metric: "heart_rate", value: 61, at: T0 * 1000 })]);
  });

  it("refuses a header size of 0", async () => {
    const file = fitFile([], 14);
    file[0] = 0;
    expect((await importBytes(file)).report.fatal?.reason).toBe("invalid_header");
  });

  it("accepts data size 0 and reports a bad CRC", async () => {
    expect((await importBytes(fitFile([]))).report.fatal).toBeUndefined();
    const file = fitFile([...definition(0, 20, hrRecord(T0, 61)), ...data(0, hrRecord(T0, 61))]);
    file[file.length - 1] = (file[file.length - 1] as number) ^ 0xff;
    expect((await importBytes(file)).report.fatal?.reason).toBe("crc_mismatch");
  });

  it("reads big-endian definitions and steps over a 255-byte field declared as uint16", async () => {
    const odd: Field = { num: 7, size: 255, type: 0x84, bytes: new Array(255).fill(0x12) };
    const fields: Field[] = [
      { num: 253, size: 4, type: 0x86, bytes: le32(T0 - FIT_EPOCH_S).reverse() },
      odd,
      { num: 3, size: 1, type: 0x02, bytes: [72] },
    ];
    const file = fitFile([...definition(2, 20, fields, true), ...data(2, fields)]);
    const decoder = new FitDecoder();
    const messages = decoder.push(file);
    decoder.finish();
    expect(decoder.error).toBeUndefined();
    expect(messages[0]?.fields.get(7)).toHaveLength(255);
    const { records } = await importBytes(file, 64);
    expect(records).toEqual([expect.objectContaining({ value: 72, at: T0 * 1000 })]);
  });

  it("resolves compressed timestamps, rolling over every 32 s", async () => {
    const full = hrRecord(T0, 60);
    const compressed: Field[] = [{ num: 3, size: 1, type: 0x02, bytes: [0] }];
    const base = (T0 - FIT_EPOCH_S) % 32;
    const records = [
      ...definition(0, 20, full),
      ...data(0, full),
      ...definition(1, 20, compressed),
      // 5 s after the full timestamp, then 31 s after that (the most a 5-bit offset can say)
      0x80 | (1 << 5) | ((base + 5) % 32),
      65,
      0x80 | (1 << 5) | ((base + 36) % 32),
      66,
    ];
    const { records: out, report } = await importBytes(fitFile(records));
    expect(report.fatal).toBeUndefined();
    expect(out.map((r) => (r.kind === "sample" ? [r.value, r.at / 1000 - T0] : []))).toEqual([
      [60, 0],
      [65, 5],
      [66, 36],
    ]);
  });

  it("flags beat intervals outside 200–3000 ms and keeps them", async () => {
    const fields: Field[] = [
      { num: 0, size: 10, type: 0x84, bytes: [0x20, 0x03, 0x96, 0x00, 0xb8, 0x0b, 0xff, 0xff, 0xff, 0xff] },
    ];
    const file = fitFile([
      ...definition(0, 20, hrRecord(T0, 60)),
      ...data(0, hrRecord(T0, 60)),
      ...definition(1, 78, fields),
      ...data(1, fields),
    ]);
    const { records, report } = await importBytes(file);
    expect(records.find((r) => r.kind === "rr")).toMatchObject({
      rrMs: [800, 150, 3000],
      startedAt: T0 * 1000,
    });
    expect(report.warnings).toEqual([expect.objectContaining({ reason: "out_of_range" })]);
    expect(leftOutOf(report.warnings)).toMatchObject({ rrOutside: 1, other: [] });
  });

  it("reports a data message whose definition never came", async () => {
    const { report } = await importBytes(fitFile([0x03, 1, 2, 3]));
    expect(report.fatal).toMatchObject({ reason: "invalid_record" });
  });
});
