import { describe, expect, it } from "vitest";
import { parseHeartRateMeasurement, rr1024ToMs } from "../src/ble/index.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

describe("parseHeartRateMeasurement", () => {
  it("reads an 8-bit heart rate with no optional fields", () => {
    const m = parseHeartRateMeasurement(bytes(0x00, 72));
    expect(m).toMatchObject({
      heartRateBpm: 72,
      heartRateFormat: 8,
      sensorContact: "not_supported",
      rrMs: [],
    });
    expect(m.energyExpendedKj).toBeUndefined();
    expect(m.issues).toEqual([]);
  });

  it("reads a 16-bit little-endian heart rate", () => {
    const m = parseHeartRateMeasurement(bytes(0x01, 0x2c, 0x01)); // 300 bpm
    expect(m.heartRateBpm).toBe(300);
    expect(m.heartRateFormat).toBe(16);
    expect(m.issues).toEqual([]);
  });

  it("decodes the sensor-contact bits", () => {
    expect(parseHeartRateMeasurement(bytes(0b110, 60)).sensorContact).toBe("detected");
    expect(parseHeartRateMeasurement(bytes(0b100, 60)).sensorContact).toBe("not_detected");
    expect(parseHeartRateMeasurement(bytes(0b010, 60)).sensorContact).toBe("not_supported");
  });

  it("reads energy expended before the RR intervals", () => {
    // flags: 16-bit HR, energy, RR; HR 65; energy 0x0102 = 258 kJ; RR 1024 (1000 ms)
    const m = parseHeartRateMeasurement(bytes(0b11001, 65, 0, 0x02, 0x01, 0x00, 0x04));
    expect(m.heartRateBpm).toBe(65);
    expect(m.energyExpendedKj).toBe(258);
    expect(m.rrMs).toEqual([1000]);
    expect(m.issues).toEqual([]);
  });

  it("converts every RR value of a multi-RR packet from 1/1024 s to ms", () => {
    // Polar H10 style: contact detected + RR, HR 58, four RR values
    const raw = [1050, 1002, 987, 1100];
    const payload = raw.flatMap((r) => [r & 0xff, r >> 8]);
    const m = parseHeartRateMeasurement(bytes(0b10110, 58, ...payload));
    expect(m.rrRaw1024).toEqual(raw);
    expect(m.rrMs).toEqual(raw.map((r) => (r * 1000) / 1024));
    expect(m.rrMs[0]).toBeCloseTo(1025.390625, 9);
    expect(m.sensorContact).toBe("detected");
    expect(m.issues).toEqual([]);
  });

  it("accepts a DataView over part of a larger buffer", () => {
    const buf = bytes(0xff, 0xff, 0x10, 70, 0x00, 0x03, 0xff);
    const m = parseHeartRateMeasurement(new DataView(buf.buffer, 2, 4));
    expect(m.heartRateBpm).toBe(70);
    expect(m.rrRaw1024).toEqual([768]);
    expect(m.rrMs).toEqual([750]);
  });

  it("returns empty_packet for a zero-length packet instead of throwing", () => {
    const m = parseHeartRateMeasurement(new ArrayBuffer(0));
    expect(m.heartRateBpm).toBeUndefined();
    expect(m.issues).toEqual([{ code: "empty_packet", offset: 0 }]);
  });

  it("returns truncated_heart_rate when the 16-bit heart rate is cut", () => {
    const m = parseHeartRateMeasurement(bytes(0x01, 0x48));
    expect(m.heartRateBpm).toBeUndefined();
    expect(m.issues).toEqual([{ code: "truncated_heart_rate", offset: 1 }]);
  });

  it("returns truncated_energy_expended and keeps the heart rate", () => {
    const m = parseHeartRateMeasurement(bytes(0b11000, 80, 0x05));
    expect(m.heartRateBpm).toBe(80);
    expect(m.energyExpendedKj).toBeUndefined();
    expect(m.issues.map((i) => i.code)).toEqual(["truncated_energy_expended"]);
  });

  it("keeps complete RR values and flags an odd trailing byte", () => {
    const m = parseHeartRateMeasurement(bytes(0x10, 60, 0x00, 0x04, 0x10));
    expect(m.rrMs).toEqual([1000]);
    expect(m.issues).toEqual([{ code: "truncated_rr_interval", offset: 4 }]);
  });

  it("flags an RR flag with no RR bytes", () => {
    const m = parseHeartRateMeasurement(bytes(0x10, 60));
    expect(m.rrMs).toEqual([]);
    expect(m.issues.map((i) => i.code)).toEqual(["rr_flag_without_values"]);
  });

  it("flags bytes after the last field when no RR flag is set", () => {
    const m = parseHeartRateMeasurement(bytes(0x00, 60, 0x00, 0x04));
    expect(m.rrMs).toEqual([]);
    expect(m.issues).toEqual([{ code: "trailing_bytes", offset: 2 }]);
  });

  it("drops zero RR values and reports zero heart rate", () => {
    const m = parseHeartRateMeasurement(bytes(0x10, 0, 0x00, 0x00, 0x00, 0x04));
    expect(m.heartRateBpm).toBe(0);
    expect(m.rrMs).toEqual([1000]);
    expect(m.issues.map((i) => i.code)).toEqual(["zero_heart_rate", "zero_rr_interval"]);
  });

  it("ignores reserved flag bits", () => {
    const m = parseHeartRateMeasurement(bytes(0b11100000, 61));
    expect(m.heartRateBpm).toBe(61);
    expect(m.issues).toEqual([]);
  });

  it("never throws on arbitrary bytes", () => {
    for (let n = 0; n < 8; n++) {
      for (let f = 0; f < 32; f++) {
        const packet = new Uint8Array(n).fill(0xab);
        if (n > 0) packet[0] = f;
        expect(() => parseHeartRateMeasurement(packet)).not.toThrow();
      }
    }
  });
});

describe("rr1024ToMs", () => {
  it("maps 1024 units to exactly 1000 ms", () => {
    expect(rr1024ToMs(1024)).toBe(1000);
    expect(rr1024ToMs(1)).toBe(0.9765625);
  });
});
