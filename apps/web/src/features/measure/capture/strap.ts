import { type HeartRateMeasurement, parseHeartRateMeasurement } from "@tonus/hrv";

/** Bluetooth SIG Heart Rate service and its Heart Rate Measurement characteristic. */
export const HEART_RATE_SERVICE = 0x180d;
export const HEART_RATE_MEASUREMENT = 0x2a37;

export type StrapListener = (measurement: HeartRateMeasurement) => void;

/** Why a strap could not connect; the page says so in the person's language. */
export type StrapErrorCode = "unsupported" | "unavailable" | "cancelled" | "failed";

export class StrapError extends Error {
  readonly code: StrapErrorCode;
  constructor(code: StrapErrorCode, message?: string) {
    super(message ?? code);
    this.name = "StrapError";
    this.code = code;
  }
}

/** A heart-rate strap: Web Bluetooth in the browser, recorded notifications in tests. */
export type HeartRateStrap = {
  /** Asks for a device (the browser shows its chooser) and starts notifications. */
  connect(onMeasurement: StrapListener, onDisconnect: () => void): Promise<{ deviceName: string }>;
  disconnect(): void;
};

/** The parts of Web Bluetooth the strap uses (the DOM library has no types for it). */
type Characteristic = EventTarget & {
  value?: DataView;
  startNotifications(): Promise<unknown>;
  stopNotifications(): Promise<unknown>;
};
type Device = EventTarget & {
  name?: string;
  gatt?: {
    connected: boolean;
    connect(): Promise<{
      getPrimaryService(service: number): Promise<{
        getCharacteristic(characteristic: number): Promise<Characteristic>;
      }>;
    }>;
    disconnect(): void;
  };
};
export type BluetoothLike = {
  getAvailability?(): Promise<boolean>;
  requestDevice(options: { filters: { services: number[] }[] }): Promise<Device>;
};

/** `navigator.bluetooth` when the browser has Web Bluetooth (Chrome, Edge, Opera; not Firefox or Safari). */
export function getBluetooth(): BluetoothLike | null {
  if (typeof navigator === "undefined") return null;
  return (navigator as Navigator & { bluetooth?: BluetoothLike }).bluetooth ?? null;
}

/** A strap through Web Bluetooth: Heart Rate service 0x180D, notifications of characteristic 0x2A37. */
export function createBluetoothStrap(bluetooth: BluetoothLike): HeartRateStrap {
  let device: Device | null = null;
  let characteristic: Characteristic | null = null;
  let onValue: ((event: Event) => void) | null = null;
  let onGone: (() => void) | null = null;

  return {
    async connect(onMeasurement, onDisconnect) {
      if (bluetooth.getAvailability && !(await bluetooth.getAvailability())) {
        throw new StrapError("unavailable");
      }
      try {
        device = await bluetooth.requestDevice({ filters: [{ services: [HEART_RATE_SERVICE] }] });
      } catch (error) {
        const name = error instanceof Error ? error.name : "";
        throw new StrapError(name === "NotFoundError" ? "cancelled" : "failed", String(error));
      }
      if (!device.gatt) throw new StrapError("failed", "no GATT server");
      try {
        const server = await device.gatt.connect();
        const service = await server.getPrimaryService(HEART_RATE_SERVICE);
        characteristic = await service.getCharacteristic(HEART_RATE_MEASUREMENT);
        onValue = (event) => {
          const value = (event.target as Characteristic | null)?.value;
          if (value) onMeasurement(parseHeartRateMeasurement(value));
        };
        onGone = onDisconnect;
        characteristic.addEventListener("characteristicvaluechanged", onValue);
        device.addEventListener("gattserverdisconnected", onGone);
        await characteristic.startNotifications();
      } catch (error) {
        throw new StrapError("failed", String(error));
      }
      return { deviceName: device.name ?? "" };
    },
    disconnect() {
      if (characteristic && onValue) {
        characteristic.removeEventListener("characteristicvaluechanged", onValue);
        characteristic.stopNotifications().catch(() => undefined);
      }
      if (device && onGone) device.removeEventListener("gattserverdisconnected", onGone);
      if (device?.gatt?.connected) device.gatt.disconnect();
      device = null;
      characteristic = null;
    },
  };
}

/** One recorded notification: when it arrived (ms after the first) and its bytes. */
export type RecordedNotification = { atMs: number; bytes: number[] };

/**
 * Replays recorded notifications through the same interface (tests, demos). `speed` > 1 plays faster;
 * the packets themselves are parsed exactly as live ones are.
 */
export function createReplayStrap(
  notifications: readonly RecordedNotification[],
  options: { speed?: number; deviceName?: string } = {},
): HeartRateStrap {
  const speed = options.speed ?? 1;
  const timers: ReturnType<typeof setTimeout>[] = [];
  return {
    async connect(onMeasurement, onDisconnect) {
      for (const [index, notification] of notifications.entries()) {
        timers.push(
          setTimeout(() => {
            onMeasurement(parseHeartRateMeasurement(new Uint8Array(notification.bytes)));
            if (index === notifications.length - 1) onDisconnect();
          }, notification.atMs / speed),
        );
      }
      return { deviceName: options.deviceName ?? "Replay" };
    },
    disconnect() {
      for (const timer of timers) clearTimeout(timer);
      timers.length = 0;
    },
  };
}

/**
 * Heart Rate Measurement packets for an RR series, as a strap sends them: about one a second, with
 * the RR intervals that ended since the previous one (uint16, 1/1024 s), heart rate as uint8 and
 * sensor contact detected. Used to record test fixtures from real RR series.
 */
export function encodeNotifications(rrMs: readonly number[]): RecordedNotification[] {
  const out: RecordedNotification[] = [];
  let elapsedMs = 0;
  let pending: number[] = [];
  let nextSendMs = 1000;
  for (const rr of rrMs) {
    elapsedMs += rr;
    pending.push(rr);
    if (elapsedMs < nextSendMs) continue;
    const hr = Math.min(255, Math.round(60000 / rr));
    const bytes = [0x16, hr];
    for (const value of pending) {
      const raw = Math.round((value * 1024) / 1000);
      bytes.push(raw & 0xff, raw >> 8);
    }
    out.push({ atMs: Math.round(elapsedMs), bytes });
    pending = [];
    nextSendMs = elapsedMs + 1000;
  }
  return out;
}
