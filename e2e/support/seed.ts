import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { API } from "@tonus/contract";

export type SeededUser = { email: string; password: string; name: string };

/** A fresh address per test so specs run in parallel without seeing each other's data. */
export function newUser(prefix = "user"): SeededUser {
  const id = randomUUID().slice(0, 8);
  return { email: `${prefix}-${id}@example.test`, password: `Str0ng-pass-${id}`, name: `Test ${id}` };
}

/** Registers a user through the API the way the web app does (CSRF cookie first, then the POST). */
export async function registerViaApi(
  request: APIRequestContext,
  user: SeededUser,
  baseURL: string,
): Promise<void> {
  await request.get(API.csrf);
  const state = await request.storageState();
  const csrf = state.cookies.find((c) => c.name === "csrftoken")?.value ?? "";
  const res = await request.post(API.register, {
    data: { email: user.email, password: user.password, name: user.name, timezone: "Europe/Moscow" },
    headers: { "x-csrftoken": csrf, origin: baseURL },
  });
  if (!res.ok()) throw new Error(`registration failed: ${res.status()} ${await res.text()}`);
}
