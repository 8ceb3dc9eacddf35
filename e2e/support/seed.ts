import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { API, type DirectLoginCode } from "@tonus/contract";

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
  const res = await request.post(API.register, {
    data: { email: user.email, password: user.password, name: user.name, timezone: "Europe/Moscow" },
    headers: await csrfHeaders(request, baseURL),
  });
  if (!res.ok()) throw new Error(`registration failed: ${res.status()} ${await res.text()}`);
}

/** The headers an unsafe request needs: the CSRF token for this context's session and our own origin. */
export async function csrfHeaders(
  request: APIRequestContext,
  baseURL: string,
): Promise<Record<string, string>> {
  const res = await request.get(API.csrf);
  if (!res.ok()) throw new Error(`csrf failed: ${res.status()}`);
  const state = await request.storageState();
  const csrf = state.cookies.find((c) => c.name === "csrftoken")?.value ?? "";
  return { "x-csrftoken": csrf, origin: baseURL };
}

/**
 * What the companion app does before opening /user/login-direct: creates an API token with the web
 * session in `request`, then mints the one-time pair with that token alone (no cookies).
 */
export async function mintDirectLoginPair(
  request: APIRequestContext,
  newContext: (options: { baseURL: string }) => Promise<APIRequestContext>,
  baseURL: string,
): Promise<DirectLoginCode> {
  const created = await request.post(API.apiTokens, {
    data: { name: "companion" },
    headers: await csrfHeaders(request, baseURL),
  });
  if (!created.ok()) throw new Error(`token creation failed: ${created.status()} ${await created.text()}`);
  const { key } = (await created.json()) as { key: string };
  const app = await newContext({ baseURL });
  try {
    const minted = await app.post(API.directLoginCode, { headers: { authorization: `Token ${key}` } });
    if (!minted.ok()) throw new Error(`minting failed: ${minted.status()} ${await minted.text()}`);
    return (await minted.json()) as DirectLoginCode;
  } finally {
    await app.dispose();
  }
}

/** The direct-login URL the companion app opens. */
export function directLoginUrl(code: DirectLoginCode, destination?: string): string {
  const query = new URLSearchParams({ token: code.token, session_id: code.session_id });
  if (destination !== undefined) query.set("destination", destination);
  return `/user/login-direct?${query.toString()}`;
}
