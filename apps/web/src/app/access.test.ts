import { describe, expect, it } from "vitest";
import { decideRoute, type Situation } from "./access.ts";
import { findRoute, ROUTES } from "./routes.ts";

const ORIGIN = "https://app.example";

function decide(url: string, overrides: Partial<Situation> = {}) {
  const parsed = new URL(url, ORIGIN);
  return decideRoute({
    pathname: parsed.pathname,
    search: parsed.search,
    hash: parsed.hash,
    origin: ORIGIN,
    userType: "anonymous",
    isWebView: false,
    ...overrides,
  });
}

const signedIn = { userType: "full" } as const;

describe("decideRoute for a signed-out visitor", () => {
  it("sends a protected route to sign-in with the query plus destination", () => {
    expect(decide("/user/profile?tab=photo")).toEqual({
      kind: "navigate",
      to: "/user/login?tab=photo&destination=%2Fuser%2Fprofile",
    });
  });

  it("treats a share viewer as signed out on protected routes", () => {
    expect(decide("/user/units", { userType: "share" })).toMatchObject({ kind: "navigate" });
  });

  it("forwards /user/login to our sign-in page keeping a safe destination only", () => {
    expect(decide("/user/login?destination=%2Fuser%2Funits")).toEqual({
      kind: "navigate",
      to: "/auth/signin?destination=%2Fuser%2Funits",
    });
    expect(decide("/user/login?destination=https%3A%2F%2Fevil.example")).toEqual({
      kind: "navigate",
      to: "/auth/signin",
    });
  });

  it("forwards /user/register to registration with a destination", () => {
    expect(decide("/user/register")).toEqual({
      kind: "navigate",
      to: "/auth/registration/?destination=%2Fdashboard",
    });
  });

  it("leaves / for our own path in the hash, otherwise for the plans page (sign-in until billing adds it)", () => {
    const fallback = findRoute("/payments/plans/main/") ? "/payments/plans/main/" : "/auth/signin";
    expect(decide("/")).toEqual({ kind: "navigate", to: fallback });
    expect(decide("/#/terms")).toEqual({ kind: "navigate", to: "/terms" });
    expect(decide("/#//evil.example")).toEqual({ kind: "navigate", to: fallback });
  });

  it("renders open and free pages", () => {
    for (const path of ["/terms", "/privacy-policy", "/save-data", "/dashboard", "/auth/signin", "/404/"]) {
      expect(decide(path)).toMatchObject({ kind: "render" });
    }
  });

  it("sends unknown paths and /page-404 to /404/ and /error to /500/", () => {
    expect(decide("/no/such/page")).toEqual({ kind: "navigate", to: "/404/" });
    expect(decide("/page-404")).toEqual({ kind: "navigate", to: "/404/" });
    expect(decide("/error")).toEqual({ kind: "navigate", to: "/500/" });
  });

  it("hands pending direct-login credentials to the direct-login page", () => {
    expect(decide("/user/profile?x=1", { hasPendingDirectLogin: true })).toEqual({
      kind: "navigate",
      to: "/user/login-direct?destination=%2Fuser%2Fprofile%3Fx%3D1",
    });
    expect(decide("/user/login-direct", { hasPendingDirectLogin: true })).toMatchObject({ kind: "render" });
  });
});

describe("decideRoute for a signed-in person", () => {
  it("renders protected routes", () => {
    expect(decide("/user/profile", signedIn)).toMatchObject({
      kind: "render",
      row: { path: "/user/profile" },
    });
  });

  it("sends signed-out-only pages to the destination or /dashboard", () => {
    expect(decide("/user/login", signedIn)).toEqual({ kind: "navigate", to: "/dashboard" });
    expect(decide("/auth/signin?destination=%2Fuser%2Funits", signedIn)).toEqual({
      kind: "navigate",
      to: "/user/units",
    });
    expect(decide("/auth/signin?destination=%2F%2Fevil.example", signedIn)).toEqual({
      kind: "navigate",
      to: "/dashboard",
    });
  });

  it("sends / to /dashboard unless the hash names a page", () => {
    expect(decide("/", signedIn)).toEqual({ kind: "navigate", to: "/dashboard" });
    expect(decide("/#/user/units", signedIn)).toEqual({ kind: "navigate", to: "/user/units" });
  });
});

describe("decideRoute with scope=ifttt", () => {
  it("forwards any page to the API's authorize endpoint with the same query", () => {
    for (const path of ["/", "/user/profile", "/terms", "/unknown"]) {
      expect(decide(`${path}?scope=ifttt&state=s1&redirect_uri=x`)).toEqual({
        kind: "external",
        href: "/oauth2/authorize/?scope=ifttt&state=s1&redirect_uri=x",
      });
    }
  });
});

describe("decideRoute in a mobile web view", () => {
  const webView = { isWebView: true, userType: "full" } as const;

  it("flags pages for mobile redirect", () => {
    expect(decide("/user/profile", webView)).toMatchObject({ kind: "render", isMobileRedirect: true });
    expect(decide("/dashboard", webView)).toMatchObject({ kind: "render", isMobileRedirect: true });
  });

  it("keeps the listed pages", () => {
    for (const path of ["/privacy-policy", "/terms", "/user/login-direct"]) {
      expect(decide(path, webView)).toMatchObject({ kind: "render", isMobileRedirect: false });
    }
  });

  it("never flags outside a web view", () => {
    expect(decide("/user/profile", signedIn)).toMatchObject({ isMobileRedirect: false });
  });
});

describe("ROUTES", () => {
  it("has unique paths, and every row either renders a page or forwards", () => {
    const paths = ROUTES.map((row) => row.path);
    expect(new Set(paths).size).toBe(paths.length);
    for (const row of ROUTES) expect(Boolean(row.load) !== Boolean(row.forward)).toBe(true);
  });
});
