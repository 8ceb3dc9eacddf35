import { describe, expect, it } from "vitest";
import { createSecretBox, uuidFromName } from "./connectors.crypto.ts";
import { parseRetryAfter, providerUrl } from "./connectors.http.ts";
import { addDays, dayNoon, dayOf, localToInstant, parseInstant } from "./connectors.time.ts";

describe("localToInstant", () => {
  it("reads a wall-clock time in the person's zone, across clock changes", () => {
    expect(localToInstant("2026-01-15T06:45:30.000", "Europe/Moscow")?.toISOString()).toBe(
      "2026-01-15T03:45:30.000Z",
    );
    // New York: EST before 8 March 2026, EDT after.
    expect(localToInstant("2026-03-07T12:00:00", "America/New_York")?.toISOString()).toBe(
      "2026-03-07T17:00:00.000Z",
    );
    expect(localToInstant("2026-03-09T12:00:00", "America/New_York")?.toISOString()).toBe(
      "2026-03-09T16:00:00.000Z",
    );
    // 02:30 does not exist on the morning clocks spring forward: it moves with them.
    expect(localToInstant("2026-03-08T02:30:00", "America/New_York")?.toISOString()).toBe(
      "2026-03-08T07:30:00.000Z",
    );
    // 01:30 happens twice on the morning clocks go back: the first one.
    expect(localToInstant("2026-11-01T01:30:00", "America/New_York")?.toISOString()).toBe(
      "2026-11-01T05:30:00.000Z",
    );
    expect(localToInstant("2026-02-30T12:00:00", "UTC")).toBeNull();
    expect(localToInstant("yesterday", "UTC")).toBeNull();
  });

  it("puts a daily total at noon of its day, which stays that day in the zone", () => {
    for (const tz of ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Europe/Moscow", "UTC"]) {
      const at = dayNoon("2026-07-04", tz);
      expect(at && dayOf(at, tz)).toBe("2026-07-04");
    }
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("reads instants with an offset as given and others in the zone", () => {
    expect(parseInstant("2026-05-01T07:12:00+03:00", "UTC")?.toISOString()).toBe("2026-05-01T04:12:00.000Z");
    expect(parseInstant("2026-05-01T07:12:00Z", "Asia/Tokyo")?.toISOString()).toBe(
      "2026-05-01T07:12:00.000Z",
    );
    expect(parseInstant("2026-05-01T07:12:00", "Asia/Tokyo")?.toISOString()).toBe("2026-04-30T22:12:00.000Z");
    expect(parseInstant(1_700_000_000, "UTC")).toBeNull();
  });
});

describe("provider HTTP helpers", () => {
  it("honours Retry-After in seconds or as a date, within bounds", () => {
    const now = Date.parse("2026-05-01T00:00:00Z");
    expect(parseRetryAfter("7", now)).toBe(7);
    expect(parseRetryAfter("Fri, 01 May 2026 00:02:00 GMT", now)).toBe(120);
    expect(parseRetryAfter(null, now)).toBe(60);
    expect(parseRetryAfter("0", now)).toBe(1);
    expect(parseRetryAfter("999999999", now)).toBe(86_400);
    expect(parseRetryAfter("soon", now)).toBe(60);
  });

  it("replaces the provider's host with the override and keeps the path", () => {
    expect(providerUrl("https://api.ouraring.com/oauth/token", undefined).href).toBe(
      "https://api.ouraring.com/oauth/token",
    );
    expect(providerUrl("https://api.ouraring.com/oauth/token?x=1", "http://127.0.0.1:9/").href).toBe(
      "http://127.0.0.1:9/oauth/token?x=1",
    );
    expect(providerUrl("https://www.polaraccesslink.com/v3", "http://127.0.0.1:9/p").href).toBe(
      "http://127.0.0.1:9/p/v3",
    );
  });
});

describe("connector secrets", () => {
  it("seals per context and refuses altered values", () => {
    const box = createSecretBox("a-secret-key-of-at-least-thirty-two-characters");
    const sealed = box.seal("at_token", "c1|access");
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain("at_token");
    expect(box.open(sealed, "c1|access")).toBe("at_token");
    expect(box.open(sealed, "c2|access")).toBeNull();
    const [v, iv, body = ""] = sealed.split(".");
    // Every byte of the sealed body, the tag included, is protected: flip one bit in each in turn.
    const bytes = Buffer.from(body, "base64url");
    for (let i = 0; i < bytes.length; i++) {
      const altered = Buffer.from(bytes);
      altered[i] = (altered[i] ?? 0) ^ 1;
      expect(box.open(`${v}.${iv}.${altered.toString("base64url")}`, "c1|access")).toBeNull();
    }
    expect(box.open("garbage", "c1|access")).toBeNull();
    expect(box.seal("at_token", "c1|access")).not.toBe(sealed);
  });

  it("derives the same version-5 UUID for the same provider record only", () => {
    const a = uuidFromName("withings:363:200");
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFromName("withings:363:200")).toBe(a);
    expect(uuidFromName("withings:363:201")).not.toBe(a);
  });
});
