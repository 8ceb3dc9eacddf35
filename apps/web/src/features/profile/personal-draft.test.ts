import type { Profile } from "@tonus/contract";
import { describe, expect, it } from "vitest";
import { toDraft, toUpdate } from "./personal-draft.ts";

const PROFILE: Profile = {
  id: "u1",
  username: "anna",
  email: "anna@example.org",
  hmac: "h",
  userpic: null,
  is_ios_user: false,
  is_android_user: false,
  billing_status: "none",
  is_customer: true,
  plan: null,
  upgradable: false,
  name: "Anna",
  gender: "female",
  date_of_birth: "1990-05-01",
  height: 170,
  weight: 60,
  units: "metric",
  energy_unit: "kcal",
  newsletter_language: "en",
  timezone: "Europe/Berlin",
  role: "user",
};

describe("toUpdate", () => {
  it("sends nothing when nothing changed, in either unit system", () => {
    expect(toUpdate(toDraft(PROFILE), PROFILE)).toEqual({});
    const imperial = { ...PROFILE, units: "imperial" as const };
    expect(toUpdate(toDraft(imperial), imperial)).toEqual({});
  });

  it("sends only the changed fields", () => {
    expect(toUpdate({ ...toDraft(PROFILE), name: "Anya ", gender: "" }, PROFILE)).toEqual({
      name: "Anya",
      gender: null,
    });
  });

  it("stores pounds and feet/inches as kilograms and centimetres", () => {
    const imperial = { ...PROFILE, units: "imperial" as const };
    const update = toUpdate({ ...toDraft(imperial), weight: "150", heightFt: "5", heightIn: "10" }, imperial);
    expect(update.weight).toBeCloseTo(68.04, 2);
    expect(update.height).toBeCloseTo(177.8, 2);
  });

  it("accepts a decimal comma and clears an emptied value", () => {
    expect(toUpdate({ ...toDraft(PROFILE), weight: "61,5" }, PROFILE)).toEqual({ weight: 61.5 });
    expect(toUpdate({ ...toDraft(PROFILE), heightCm: "" }, PROFILE)).toEqual({ height: null });
  });
});
