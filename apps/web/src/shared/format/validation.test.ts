import { describe, expect, it } from "vitest";
import { isValidEmail, ratePassword } from "./validation.ts";

describe("isValidEmail", () => {
  it("accepts ordinary addresses and refuses obvious typos", () => {
    expect(isValidEmail("anna@example.org")).toBe(true);
    expect(isValidEmail("anna@example")).toBe(false);
    expect(isValidEmail("anna example.org")).toBe(false);
    expect(isValidEmail("")).toBe(false);
  });
});

describe("ratePassword", () => {
  it("grows stronger with length and variety", () => {
    expect(ratePassword("abc")).toBe("too_short");
    expect(ratePassword("abcdefgh")).toBe("weak");
    expect(ratePassword("abcdEF12")).toBe("fair");
    expect(ratePassword("correct horse battery")).toBe("strong");
  });
});
