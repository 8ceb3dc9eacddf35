// What the mapper reads of an element's attributes, straight from the scanned bytes: where each one
// is, and the values records repeat (type, unit, source, device, sleep stage) through caches keyed by
// their bytes, so a record costs no strings but its own (its client id) and no objects but its record.
import { ByteCache } from "./byte-values.ts";
import { lookUp, QUANTITY_TYPES, type QuantityMapping, SLEEP_STAGES, SLEEP_TYPE } from "./types-map.ts";
import { cleanXmlValue, type XmlAttributes } from "./xml-scanner.ts";

/** Where the attributes a record needs are in a tag (the last of each name, as a decoder reading them in turn keeps; -1: absent). */
export class AttrIndex {
  type = -1;
  unit = -1;
  value = -1;
  sourceName = -1;
  device = -1;
  startDate = -1;
  endDate = -1;

  /** Reads where they are in `a`; `typeName` names the type (`workoutActivityType` for a Workout). */
  locate(a: XmlAttributes, typeName: string): this {
    this.type = this.unit = this.value = this.sourceName = this.device = this.startDate = this.endDate = -1;
    // One pass over the attributes, told apart by name length first (a Record has about nine).
    for (let i = 0; i < a.count; i++) {
      switch (a.nameLength(i)) {
        case 4:
          if (a.nameIs(i, "unit")) this.unit = i;
          else if (a.nameIs(i, typeName)) this.type = i;
          break;
        case 5:
          if (a.nameIs(i, "value")) this.value = i;
          break;
        case 6:
          if (a.nameIs(i, "device")) this.device = i;
          break;
        case 7:
          if (a.nameIs(i, "endDate")) this.endDate = i;
          break;
        case 9:
          if (a.nameIs(i, "startDate")) this.startDate = i;
          break;
        case 10:
          if (a.nameIs(i, "sourceName")) this.sourceName = i;
          break;
        default:
          if (a.nameIs(i, typeName)) this.type = i;
      }
    }
    return this;
  }
}

/** What a type identifier means here, worked out once per identifier. */
export type TypeInfo = {
  mapping: QuantityMapping | undefined;
  isSleep: boolean;
  /** True once its `unsupported_type` warning was given (a second one would change nothing). */
  warned: boolean;
  /** The unit its records were last in, and that unit's factor to the storage unit. */
  lastUnit: string | null;
  lastFactor: number | undefined;
};

/**
 * Where a record came from: its source's name, a short key of it, and — for Apple's own devices — the
 * sub-source its samples are stored under (`watch`, `phone`), so the dashboard can prefer the Watch
 * where both counted the same steps.
 */
export type Device = {
  name: string;
  key: string;
  meta: Readonly<Record<string, string>>;
  kind: "watch" | "phone" | null;
  /** Where its samples are stored: `apple_health`, or its kind's sub-source. */
  sampleSource: string;
};

/**
 * An Apple device's kind, from the record's `device` attribute (its `model:` or `name:`), else from the
 * source's name ("Anna's Apple Watch", "Anna's iPhone"); null for other apps and devices.
 */
export function appleDeviceKind(sourceName: string, device: string): "watch" | "phone" | null {
  const model = /\bmodel:([^,>]*)/.exec(device)?.[1] ?? /\bname:([^,>]*)/.exec(device)?.[1];
  const text = model ?? sourceName;
  if (/\bwatch\b/i.test(text)) return "watch";
  if (/\biphone\b/i.test(text)) return "phone";
  return null;
}

/** Two 32-bit FNV-1a hashes of `s` as 16 hex digits: a short, stable id for a record with no id. */
export function hashId(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

/** Devices of one source name, by raw `device` attribute; cleared past this many (a file may hold any). */
const DEVICES_PER_SOURCE = 256;

/** The caches one import reads its attributes through. */
export class AttrValues {
  readonly types = new ByteCache<TypeInfo>(64, (raw) => ({
    mapping: lookUp(QUANTITY_TYPES, raw),
    isSleep: raw === SLEEP_TYPE,
    warned: false,
    lastUnit: null,
    lastFactor: undefined,
  }));
  readonly units = new ByteCache<null>(64, () => null);
  readonly stages = new ByteCache<string | undefined>(16, (raw) => lookUp(SLEEP_STAGES, raw));
  private readonly sources = new ByteCache<Map<string, Device>>(64, () => new Map());
  private readonly deviceAttrs = new ByteCache<null>(64, () => null);
  private readonly source: string;

  /** `source`: where samples of devices that are not Apple's go. */
  constructor(source: string) {
    this.source = source;
  }

  /** The raw text of attribute `i` of `a` through `cache` (the empty text when `i` is -1). */
  static raw<T>(cache: ByteCache<T>, a: XmlAttributes, i: number): { raw: string; data: T } {
    return i < 0 ? cache.get(a.bytes, 0, 0) : cache.get(a.bytes, a.valueStart(i), a.valueEnd(i));
  }

  /** The device of attributes `sourceName` and `device` of `a` (-1: absent, read as empty). */
  device(a: XmlAttributes, sourceName: number, device: number): Device {
    const source = AttrValues.raw(this.sources, a, sourceName);
    const attr = AttrValues.raw(this.deviceAttrs, a, device).raw;
    let found = source.data.get(attr);
    if (found === undefined) {
      if (source.data.size >= DEVICES_PER_SOURCE) source.data.clear();
      const name = cleanXmlValue(source.raw);
      // One meta object per device, shared by its records (read-only): fewer allocations per record.
      const kind = appleDeviceKind(name, cleanXmlValue(attr));
      found = {
        name,
        key: hashId(name),
        meta: Object.freeze({ device: name }),
        kind,
        // Samples of the Watch and of the iPhone go to sub-sources (`apple_health.watch`,
        // `apple_health.phone`): both count steps, distance and energy, often over the same minutes,
        // and the dashboard then takes one of them per metric and day — the Watch, as Apple Health
        // itself prefers it — instead of their sum.
        sampleSource: kind ? `${this.source}.${kind}` : this.source,
      };
      source.data.set(attr, found);
    }
    return found;
  }
}
