import { useSyncExternalStore } from "react";

/** Spec §3 alert message: message and status (default success). */
export type AlertMessage = { id: number; message: string; status: "success" | "error" };

/** Spec §9: the transient alert closes by itself after 3000 ms. */
export const ALERT_AUTO_CLOSE_MS = 3000;

let current: AlertMessage | null = null;
let nextId = 1;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function showAlert(message: string, status: AlertMessage["status"] = "success"): void {
  current = { id: nextId++, message, status };
  emit();
}

export function closeAlert(id?: number): void {
  if (current === null || (id !== undefined && current.id !== id)) return;
  current = null;
  emit();
}

export function useCurrentAlert(): AlertMessage | null {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => current,
    () => null,
  );
}
