import { describe, expect, it } from "vitest";
import { getHashRedirectTarget, safeRedirectTarget } from "./safe-redirect.ts";

const ORIGIN = "https://app.example";

const HOSTILE = [
  "https://evil.example",
  "http://evil.example/",
  "//evil.example",
  "///evil.example",
  "////evil.example/path",
  "/\\evil.example",
  "\\\\evil.example",
  "\\/evil.example",
  "https:evil.example",
  "https:/evil.example",
  "http:\\\\evil.example",
  "HTTPS://EVIL.EXAMPLE",
  "https://app.example.evil.example",
  "https://app.example@evil.example",
  "https://app.example:pass@evil.example/",
  "https://user@app.example/",
  "https://evil.example#app.example",
  "https://evil.example?https://app.example",
  "https://evil.example/https://app.example/",
  "http://app.example/",
  "https://app.example:8443/",
  "https://app.examplex/",
  "javascript:alert(1)",
  "JavaScript:alert(1)",
  " javascript:alert(1)",
  "java\tscript:alert(1)",
  "java\nscript:alert(1)",
  "java\rscript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "vbscript:msgbox(1)",
  "file:///etc/passwd",
  "%2F%2Fevil.example",
  "%2f%2fevil.example",
  "/%09/evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/.//evil.example",
  "/a/..//evil.example",
  "\u0000//evil.example",
  " //evil.example",
  "//evil.example\u3002com",
  "evil.example",
  "dashboard",
  "../evil",
  "?//evil.example",
  "#//evil.example",
  "https://app.example\\@evil.example",
  "ftp://app.example/",
  "https://xn--pp-ekc.example/",
  "",
];

const ALLOWED: [string, string, boolean][] = [
  ["/dashboard", "/dashboard", false],
  ["/user/profile?tab=1#top", "/user/profile?tab=1#top", false],
  ["/%2F%2Fevil.example", "/%2F%2Fevil.example", false],
  ["https://app.example/lms", "/lms", true],
  ["https://app.example", "/", true],
  ["https://APP.example/dashboard?x=1", "/dashboard?x=1", true],
];

describe("safeRedirectTarget", () => {
  it("holds a corpus of at least 40 hostile values", () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HOSTILE)("refuses %j", (value) => {
    expect(safeRedirectTarget(value, ORIGIN)).toBeNull();
  });

  it.each(ALLOWED)("accepts %j as %j", (value, path, isAbsolute) => {
    expect(safeRedirectTarget(value, ORIGIN)).toEqual({ path, isAbsolute });
  });

  it("refuses null, undefined and over-long values", () => {
    expect(safeRedirectTarget(null, ORIGIN)).toBeNull();
    expect(safeRedirectTarget(undefined, ORIGIN)).toBeNull();
    expect(safeRedirectTarget(`/${"a".repeat(3000)}`, ORIGIN)).toBeNull();
  });

  it("never answers a path a browser would read as another host", () => {
    for (const value of [...HOSTILE, ...ALLOWED.map((row) => row[0])]) {
      const target = safeRedirectTarget(value, ORIGIN);
      if (target === null) continue;
      expect(new URL(target.path, ORIGIN).origin).toBe(ORIGIN);
      expect(target.path.startsWith("//")).toBe(false);
    }
  });
});

describe("getHashRedirectTarget", () => {
  it("answers our own path from the hash", () => {
    expect(getHashRedirectTarget("#/user/profile", ORIGIN)).toBe("/user/profile");
    expect(getHashRedirectTarget("#/user/units?x=1", ORIGIN)).toBe("/user/units?x=1");
  });

  it.each(["#//evil.example", "#/\\evil.example", "#https://evil.example", "#user/units", "#", "", "#/"])(
    "ignores %j",
    (hash) => {
      expect(getHashRedirectTarget(hash, ORIGIN)).toBeNull();
    },
  );
});
