import { useSyncExternalStore } from "react";

let isMaintenance = false;
const listeners = new Set<() => void>();

/** Set when any call answers 503 `maintenance`; the shell then shows the maintenance message. */
export function setMaintenance(value: boolean): void {
  if (isMaintenance === value) return;
  isMaintenance = value;
  for (const listener of listeners) listener();
}

export function useMaintenance(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => isMaintenance,
    () => false,
  );
}
