import { describe, expect, it } from "vitest";
import { BpReadingCreateSchema, BpReadingUpdateSchema } from "./bp.ts";
import { MeasurementUploadSchema } from "./measurements.ts";
import { OAuthTokenRequestSchema } from "./oauth.ts";

// PostgreSQL text cannot hold a NUL character: a free-text field that lets one through turns a bad
// request into a 500 (found by the heavy fuzz run of the blood-pressure routes).
describe("free-text fields", () => {
  it("refuse a NUL character with a validation issue", () => {
    const reading = { systolic: 120, diastolic: 80, measured_at: "2026-01-01T00:00:00Z", time_zone: "UTC" };
    expect(BpReadingCreateSchema.safeParse({ ...reading, note: "a\u0000b" }).success).toBe(false);
    expect(BpReadingCreateSchema.safeParse({ ...reading, note: "after coffee" }).success).toBe(true);
    expect(BpReadingUpdateSchema.safeParse({ note: "\u0000" }).success).toBe(false);
    const measurement = {
      client_id: "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
      rr_ms: Array.from({ length: 150 }, () => 800),
      source: "strap",
      started_at: "2026-01-01T00:00:00Z",
      time_zone: "UTC",
    };
    expect(MeasurementUploadSchema.safeParse({ ...measurement, device: "Polar\u0000H10" }).success).toBe(
      false,
    );
    expect(MeasurementUploadSchema.safeParse({ ...measurement, device: "Polar H10" }).success).toBe(true);
    // Found by the OAuth routes' fuzz run on PostgreSQL: a client_id of "\u0000" reached the client look-up.
    for (const field of Object.keys(OAuthTokenRequestSchema.shape)) {
      expect(OAuthTokenRequestSchema.safeParse({ [field]: "a\u0000" }).success, field).toBe(false);
      expect(OAuthTokenRequestSchema.safeParse({ [field]: "a" }).success, field).toBe(true);
    }
  });
});
