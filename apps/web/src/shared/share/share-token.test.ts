import { describe, expect, it } from "vitest";
import { shareTokenFromHash } from "./useShareToken.ts";

describe("shareTokenFromHash", () => {
  it("reads a share token from the address fragment and nothing else", () => {
    const token = `tsh_${"A".repeat(43)}`;
    expect(shareTokenFromHash(`#${token}`)).toBe(token);
    expect(shareTokenFromHash(`#${encodeURIComponent(token)}`)).toBe(token);
    for (const hash of [
      "",
      "#",
      "#tok_abcdefghijklmnopqrstuvwxyz",
      "#tsh_short",
      `#${token}&x=1`,
      "#%E0%A4%A",
    ]) {
      expect(shareTokenFromHash(hash), hash).toBeNull();
    }
  });
});
