// FIT base types (protocol §4.2): the low 5 bits of the base-type byte number them; each has a size and
// an "invalid" value that means "no data" (for the z types, zero).

/** Element size in bytes by base-type number (0 enum … 16 uint64z). */
export const BASE_TYPE_SIZE = [1, 1, 1, 2, 2, 4, 4, 1, 4, 8, 1, 2, 4, 1, 8, 8, 8] as const;

/** Base-type numbers. */
export const BT = {
  enum: 0,
  sint8: 1,
  uint8: 2,
  sint16: 3,
  uint16: 4,
  sint32: 5,
  uint32: 6,
  string: 7,
  float32: 8,
  float64: 9,
  uint8z: 10,
  uint16z: 11,
  uint32z: 12,
  byte: 13,
  sint64: 14,
  uint64: 15,
  uint64z: 16,
} as const;

/**
 * Reads one element of base type `bt` at `at`; returns undefined for the type's invalid value.
 * 64-bit integers are returned as (possibly rounded) numbers: no field Tonus reads needs more.
 */
export function readElement(view: DataView, at: number, bt: number, little: boolean): number | undefined {
  switch (bt) {
    case BT.enum:
    case BT.uint8:
    case BT.byte: {
      const v = view.getUint8(at);
      return v === 0xff ? undefined : v;
    }
    case BT.sint8: {
      const v = view.getInt8(at);
      return v === 0x7f ? undefined : v;
    }
    case BT.uint8z: {
      const v = view.getUint8(at);
      return v === 0 ? undefined : v;
    }
    case BT.sint16: {
      const v = view.getInt16(at, little);
      return v === 0x7fff ? undefined : v;
    }
    case BT.uint16: {
      const v = view.getUint16(at, little);
      return v === 0xffff ? undefined : v;
    }
    case BT.uint16z: {
      const v = view.getUint16(at, little);
      return v === 0 ? undefined : v;
    }
    case BT.sint32: {
      const v = view.getInt32(at, little);
      return v === 0x7fffffff ? undefined : v;
    }
    case BT.uint32: {
      const v = view.getUint32(at, little);
      return v === 0xffffffff ? undefined : v;
    }
    case BT.uint32z: {
      const v = view.getUint32(at, little);
      return v === 0 ? undefined : v;
    }
    case BT.float32: {
      if (view.getUint32(at, little) === 0xffffffff) return undefined;
      const v = view.getFloat32(at, little);
      return Number.isFinite(v) ? v : undefined;
    }
    case BT.float64: {
      const v = view.getFloat64(at, little);
      return Number.isFinite(v) ? v : undefined;
    }
    case BT.sint64: {
      const v = view.getBigInt64(at, little);
      return v === 0x7fffffffffffffffn ? undefined : Number(v);
    }
    case BT.uint64: {
      const v = view.getBigUint64(at, little);
      return v === 0xffffffffffffffffn ? undefined : Number(v);
    }
    case BT.uint64z: {
      const v = view.getBigUint64(at, little);
      return v === 0n ? undefined : Number(v);
    }
    default:
      return undefined;
  }
}
