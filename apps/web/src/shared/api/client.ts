import type { ApiErrorBody, ErrorCode } from "@tonus/contract";
import { API } from "@tonus/contract";
import { readCookie } from "./cookies.ts";

/** Every non-2xx answer (and a network failure, status 0) becomes this one error. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ErrorCode | "network";
  readonly body: Partial<ApiErrorBody> | null;

  constructor(status: number, code: ErrorCode | "network", body: Partial<ApiErrorBody> | null) {
    super(body?.error ?? body?.detail ?? `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.body = body;
  }
}

/** What the app does about the spec's global failures; wired once by the app shell. */
export type GlobalFailureHandlers = {
  onNotAuthenticated: () => void;
  onServerFailure: () => void;
  onMaintenance: () => void;
};

export type RequestOptions = {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** A JSON body, or FormData for uploads. */
  body?: unknown;
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /**
   * Sign-in, session and logout calls answer 403 as part of their own flow; they opt out of the global
   * "403 → sign-in" rule so a wrong password never bounces the person around.
   */
  isDataCall?: boolean;
  /**
   * A share viewer's token (`tsh_…`), sent as `Authorization: Token …` without cookies, so the request
   * can only ever read what that one link grants.
   */
  authToken?: string;
  /**
   * `Idempotency-Key` for a request that must take effect once (a payment): the server answers a repeat
   * with the first result instead of acting again.
   */
  idempotencyKey?: string;
  /**
   * Work the person did not ask for on this page (the offline queue's uploads): its failures never
   * navigate anywhere (no 500 page, no sign-in redirect); the caller decides what they mean.
   */
  isBackground?: boolean;
};

const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const CSRF_COOKIE = "csrftoken";

let handlers: GlobalFailureHandlers | null = null;
let getLanguage: () => string = () => "en";
let fetchImpl: typeof fetch = (input, init) => globalThis.fetch(input, init);

export function configureApiClient(options: {
  handlers?: GlobalFailureHandlers;
  getLanguage?: () => string;
  fetch?: typeof fetch;
}): void {
  if (options.handlers) handlers = options.handlers;
  if (options.getLanguage) getLanguage = options.getLanguage;
  if (options.fetch) fetchImpl = options.fetch;
}

/** Sends one API request with cookies, language and CSRF header; the spec's global rules apply here only. */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await sendWithCsrfRetry<T>(path, options);
  } catch (error) {
    if (error instanceof ApiError && !options.isBackground)
      applyGlobalRules(error, options.isDataCall ?? true);
    throw error;
  }
}

async function sendWithCsrfRetry<T>(path: string, options: RequestOptions): Promise<T> {
  try {
    return await sendOnce<T>(path, options);
  } catch (error) {
    // A stale CSRF token is not a logout (RELIABILITY §0.5): refresh the cookie once and retry once.
    if (!(error instanceof ApiError) || error.status !== 403 || error.code !== "csrf_failed") throw error;
    await sendOnce<unknown>(API.csrf, { method: "GET" });
    return sendOnce<T>(path, options);
  }
}

async function sendOnce<T>(path: string, options: RequestOptions): Promise<T> {
  const method = options.method ?? "GET";
  const headers = new Headers({ Accept: "application/json", "Accept-Language": getLanguage() });
  if (UNSAFE_METHODS.has(method)) {
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers.set("X-CSRFToken", csrf);
  }
  if (options.authToken) headers.set("Authorization", `Token ${options.authToken}`);
  if (options.idempotencyKey) headers.set("Idempotency-Key", options.idempotencyKey);
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) {
    body = options.body;
  } else if (options.body !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(options.body);
  }
  let response: Response;
  try {
    response = await fetchImpl(buildUrl(path, options.query), {
      method,
      headers,
      body,
      credentials: options.authToken ? "omit" : "same-origin",
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(0, "network", null);
  }
  const payload = await readPayload(response);
  if (!response.ok) throw toApiError(response.status, payload);
  return payload as T;
}

function buildUrl(path: string, query: RequestOptions["query"]): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, value);
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}

async function readPayload(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined;
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function toApiError(status: number, payload: unknown): ApiError {
  const body = isErrorBody(payload) ? payload : null;
  const code = body?.code ?? guessCode(status);
  return new ApiError(status, code, body);
}

function isErrorBody(value: unknown): value is Partial<ApiErrorBody> {
  return typeof value === "object" && value !== null && ("code" in value || "error" in value);
}

function guessCode(status: number): ErrorCode {
  if (status === 403) return "not_authenticated";
  if (status === 404) return "not_found";
  if (status === 503) return "unavailable";
  if (status >= 500) return "internal";
  return "validation_failed";
}

function applyGlobalRules(error: ApiError, isDataCall: boolean): void {
  if (!handlers) return;
  if (error.status === 503 && error.code === "maintenance") {
    handlers.onMaintenance();
    return;
  }
  if (error.status >= 500) {
    handlers.onServerFailure();
    return;
  }
  if (isDataCall && error.status === 403 && error.code === "not_authenticated") handlers.onNotAuthenticated();
}
