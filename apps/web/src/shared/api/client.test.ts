import { API } from "@tonus/contract";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, apiRequest, configureApiClient } from "./client.ts";

type Call = { url: string; method: string; headers: Headers };

function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

describe("apiRequest", () => {
  let calls: Call[];
  const handlers = { onNotAuthenticated: vi.fn(), onServerFailure: vi.fn(), onMaintenance: vi.fn() };

  function useResponses(...responses: (() => Response)[]): void {
    configureApiClient({
      handlers,
      getLanguage: () => "ru",
      fetch: async (input, init) => {
        calls.push({
          url: String(input),
          method: init?.method ?? "GET",
          headers: new Headers(init?.headers),
        });
        const next = responses.shift();
        if (!next) throw new Error("unexpected request");
        return next();
      },
    });
  }

  beforeEach(() => {
    calls = [];
    for (const fn of Object.values(handlers)) fn.mockReset();
    // biome-ignore lint/suspicious/noDocumentCookie: the test sets the CSRF cookie the client reads
    document.cookie = "csrftoken=tok-1";
  });
  afterEach(() => {
    // biome-ignore lint/suspicious/noDocumentCookie: clean up the cookie set above
    document.cookie = "csrftoken=; expires=Thu, 01 Jan 1970 00:00:00 GMT";
  });

  it("sends the language and, on unsafe methods, the CSRF cookie as X-CSRFToken", async () => {
    useResponses(
      () => jsonResponse(200, { ok: true }),
      () => jsonResponse(200, { ok: true }),
    );
    await apiRequest(API.profile);
    await apiRequest(API.profile, { method: "PUT", body: { name: "A" } });
    expect(calls[0]?.headers.get("Accept-Language")).toBe("ru");
    expect(calls[0]?.headers.get("X-CSRFToken")).toBeNull();
    expect(calls[1]?.headers.get("X-CSRFToken")).toBe("tok-1");
  });

  it("refreshes the CSRF cookie once and retries once on csrf_failed, without signing out", async () => {
    useResponses(
      () => jsonResponse(403, { error: "CSRF", code: "csrf_failed" }),
      () => jsonResponse(200, { ok: true }),
      () => jsonResponse(200, { saved: 1 }),
    );
    await expect(apiRequest(API.profile, { method: "PUT", body: {} })).resolves.toEqual({ saved: 1 });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      `PUT ${API.profile}`,
      `GET ${API.csrf}`,
      `PUT ${API.profile}`,
    ]);
    expect(handlers.onNotAuthenticated).not.toHaveBeenCalled();
  });

  it("gives up after one retry and still does not sign out", async () => {
    useResponses(
      () => jsonResponse(403, { error: "CSRF", code: "csrf_failed" }),
      () => jsonResponse(200, { ok: true }),
      () => jsonResponse(403, { error: "CSRF", code: "csrf_failed" }),
    );
    const error = await apiRequest(API.profile, { method: "PUT", body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: "csrf_failed" });
    expect(calls).toHaveLength(3);
    expect(handlers.onNotAuthenticated).not.toHaveBeenCalled();
  });

  it("sends a data call answered 403 not_authenticated to sign-in", async () => {
    useResponses(() => jsonResponse(403, { error: "no", code: "not_authenticated" }));
    await expect(apiRequest(API.profile)).rejects.toMatchObject({ status: 403 });
    expect(handlers.onNotAuthenticated).toHaveBeenCalledTimes(1);
  });

  it("leaves a 403 on a non-data call to its caller", async () => {
    useResponses(() => jsonResponse(403, { error: "no", code: "not_authenticated" }));
    await expect(apiRequest(API.logout, { isDataCall: false })).rejects.toBeInstanceOf(ApiError);
    expect(handlers.onNotAuthenticated).not.toHaveBeenCalled();
  });

  it("routes server failures to the server-down page and 503 maintenance to the maintenance message", async () => {
    useResponses(
      () => new Response("boom", { status: 500 }),
      () => jsonResponse(503, { error: "m", code: "maintenance" }),
    );
    await expect(apiRequest(API.profile)).rejects.toMatchObject({ status: 500, code: "internal" });
    await expect(apiRequest(API.profile)).rejects.toMatchObject({ status: 503, code: "maintenance" });
    expect(handlers.onServerFailure).toHaveBeenCalledTimes(1);
    expect(handlers.onMaintenance).toHaveBeenCalledTimes(1);
  });

  it("turns a validation answer into an ApiError carrying the body", async () => {
    useResponses(() => jsonResponse(400, { error: "bad", code: "invalid_credentials" }));
    await expect(apiRequest(API.signin, { method: "POST", body: {} })).rejects.toMatchObject({
      status: 400,
      code: "invalid_credentials",
      body: { error: "bad" },
    });
    expect(handlers.onServerFailure).not.toHaveBeenCalled();
  });
});
