import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isCommonPassword } from "./passwords.ts";

const listed = readFileSync(new URL("./common-passwords.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line.trim() && !line.startsWith("#"));

describe("common-password list (ASVS 6.2.4, RELIABILITY L2)", () => {
  it("holds at least the top 3,000 passwords, each refused whatever its case", () => {
    expect(listed.length).toBeGreaterThanOrEqual(3000);
    for (const password of listed) {
      expect(isCommonPassword(password), password).toBe(true);
      expect(isCommonPassword(password.toUpperCase()), password).toBe(true);
    }
  });

  it("refuses well-known ones from the top and the tail of the ranking, accepts a passphrase", () => {
    for (const password of ["123456", "password", "qwerty123", "trustno1", "baseball", "Superman"])
      expect(isCommonPassword(password), password).toBe(true);
    expect(isCommonPassword(listed[2999] ?? "")).toBe(true);
    expect(isCommonPassword("correct horse battery staple")).toBe(false);
    expect(isCommonPassword("Тонус-пароль-2026")).toBe(false);
  });
});
