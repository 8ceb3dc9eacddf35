// Parser for the Bluetooth SIG Heart Rate Measurement characteristic (UUID 0x2A37).
// Layout (Heart Rate Service 1.0, GATT Specification Supplement §3.113):
//   byte 0      flags: bit0 HR format (0 = uint8, 1 = uint16), bit1 sensor contact detected,
//               bit2 sensor contact supported, bit3 energy expended present, bit4 RR intervals present,
//               bits 5–7 reserved
//   then        heart rate (uint8 or uint16 LE, beats/min)
//   then        energy expended (uint16 LE, kJ) if bit3
//   then        zero or more RR intervals (uint16 LE, units of 1/1024 s) if bit4, to the end of the packet

/** Why part of a Heart Rate Measurement packet could not be read; stable codes for the UI catalogues. */
export type BleIssueCode =
  /** The packet has no bytes at all (not even the flags byte). */
  | "empty_packet"
  /** The packet ends before the heart-rate field announced by the flags is complete. */
  | "truncated_heart_rate"
  /** The flags announce an energy-expended field but the packet ends inside it. */
  | "truncated_energy_expended"
  /** The RR field has an odd number of bytes; the trailing byte was ignored. */
  | "truncated_rr_interval"
  /** The flags announce RR intervals but the packet carries none. */
  | "rr_flag_without_values"
  /** Bytes follow the last announced field although the RR flag is off; they were ignored. */
  | "trailing_bytes"
  /** The strap reports a heart rate of 0, which straps send while they have no contact or no lock. */
  | "zero_heart_rate"
  /** An RR value of 0 was sent; it was dropped from `rrMs`. */
  | "zero_rr_interval";

export interface BleIssue {
  code: BleIssueCode;
  /** Byte offset in the packet where the problem starts, when there is one. */
  offset?: number;
}

/** Sensor contact as reported by flag bits 1–2. */
export type SensorContact = "not_supported" | "detected" | "not_detected";

export interface HeartRateMeasurement {
  /** Heart rate in beats/min as sent by the strap; absent when the packet is too short to hold it. */
  heartRateBpm?: number;
  /** Width of the heart-rate field in bits (flag bit 0). */
  heartRateFormat: 8 | 16;
  /** Skin contact (flag bits 1–2). "not_supported" when the strap does not report it. */
  sensorContact: SensorContact;
  /** Cumulative energy expended in kilojoules since the last reset; present only when flagged and complete. */
  energyExpendedKj?: number;
  /** RR intervals in milliseconds (raw × 1000 / 1024, unrounded), in the order received (oldest first). */
  rrMs: number[];
  /** The same RR intervals in the strap's raw unit, 1/1024 s. */
  rrRaw1024: number[];
  /** The flags byte as received (0 when the packet is empty). */
  flags: number;
  /** Problems found; an empty list means the packet was read completely. */
  issues: BleIssue[];
}

/** One RR unit of the Heart Rate Measurement characteristic, in milliseconds (1/1024 s). */
export const RR_UNIT_MS = 1000 / 1024;

/** Converts an RR value in the characteristic's unit (1/1024 s) to milliseconds, without rounding. */
export function rr1024ToMs(raw: number): number {
  return raw * RR_UNIT_MS;
}

function toDataView(packet: DataView | ArrayBuffer | ArrayBufferView): DataView {
  if (packet instanceof DataView) return packet;
  if (ArrayBuffer.isView(packet)) return new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
  return new DataView(packet);
}

function contactFromFlags(flags: number): SensorContact {
  if ((flags & 0b100) === 0) return "not_supported";
  return (flags & 0b010) !== 0 ? "detected" : "not_detected";
}

/**
 * Parses one Heart Rate Measurement notification (GATT characteristic 0x2A37), as delivered by Web
 * Bluetooth's `characteristicvaluechanged` event (`event.target.value`, a DataView) or by any other
 * BLE stack as bytes.
 *
 * Input: the packet as a DataView, ArrayBuffer or typed array (little-endian, per the Bluetooth
 * specification). Output: heart rate in beats/min, sensor contact, energy expended in kJ and every RR
 * interval in the packet converted from 1/1024 s to milliseconds (unrounded; a strap may send 0–9 RR
 * values per packet, oldest first).
 *
 * Dirty input never throws: an empty or truncated packet yields whatever fields could be read plus
 * `issues` (`empty_packet`, `truncated_heart_rate`, `truncated_energy_expended`, `truncated_rr_interval`,
 * `rr_flag_without_values`, `trailing_bytes`, `zero_heart_rate`, `zero_rr_interval`). Reserved flag bits
 * are ignored, as the specification asks. RR values are not range-checked here; artifact handling
 * belongs to the RR analysis.
 *
 * Reference: Bluetooth SIG, Heart Rate Service 1.0 (HRS_SPEC_V10) and GATT Specification Supplement,
 * "Heart Rate Measurement".
 */
export function parseHeartRateMeasurement(
  packet: DataView | ArrayBuffer | ArrayBufferView,
): HeartRateMeasurement {
  const view = toDataView(packet);
  const result: HeartRateMeasurement = {
    heartRateFormat: 8,
    sensorContact: "not_supported",
    rrMs: [],
    rrRaw1024: [],
    flags: 0,
    issues: [],
  };
  if (view.byteLength < 1) {
    result.issues.push({ code: "empty_packet", offset: 0 });
    return result;
  }
  const flags = view.getUint8(0);
  result.flags = flags;
  result.heartRateFormat = (flags & 0b1) !== 0 ? 16 : 8;
  result.sensorContact = contactFromFlags(flags);

  let offset = 1;
  const hrBytes = result.heartRateFormat === 16 ? 2 : 1;
  if (view.byteLength < offset + hrBytes) {
    result.issues.push({ code: "truncated_heart_rate", offset });
    return result;
  }
  result.heartRateBpm = hrBytes === 2 ? view.getUint16(offset, true) : view.getUint8(offset);
  if (result.heartRateBpm === 0) result.issues.push({ code: "zero_heart_rate", offset });
  offset += hrBytes;

  if ((flags & 0b1000) !== 0) {
    if (view.byteLength < offset + 2) {
      result.issues.push({ code: "truncated_energy_expended", offset });
      return result;
    }
    result.energyExpendedKj = view.getUint16(offset, true);
    offset += 2;
  }

  if ((flags & 0b10000) === 0) {
    if (offset < view.byteLength) result.issues.push({ code: "trailing_bytes", offset });
    return result;
  }
  if (offset >= view.byteLength) {
    result.issues.push({ code: "rr_flag_without_values", offset });
    return result;
  }
  for (; offset + 2 <= view.byteLength; offset += 2) {
    const raw = view.getUint16(offset, true);
    if (raw === 0) {
      result.issues.push({ code: "zero_rr_interval", offset });
      continue;
    }
    result.rrRaw1024.push(raw);
    result.rrMs.push(rr1024ToMs(raw));
  }
  if (offset < view.byteLength) result.issues.push({ code: "truncated_rr_interval", offset });
  return result;
}
