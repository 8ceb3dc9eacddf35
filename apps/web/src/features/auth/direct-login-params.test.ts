import { describe, expect, it } from "vitest";
import { extractDirectLoginParams } from "./direct-login-params.ts";

describe("extractDirectLoginParams", () => {
  it("takes token and session_id and removes them from the URL", () => {
    const result = extractDirectLoginParams(
      "https://app.example/user/login-direct?token=abc&session_id=def&destination=%2Fuser%2Funits",
    );
    expect(result.params).toEqual({ token: "abc", sessionId: "def" });
    expect(result.cleanHref).toBe("/user/login-direct?destination=%2Fuser%2Funits");
  });

  it("accepts auth_token in the simple shell only", () => {
    expect(
      extractDirectLoginParams("https://app.example/auth/signin?auth_token=a&session_id=b").params,
    ).toEqual({
      token: "a",
      sessionId: "b",
    });
    const full = extractDirectLoginParams("https://app.example/user/profile?auth_token=a&session_id=b");
    expect(full.params).toEqual({ token: null, sessionId: "b" });
    expect(full.cleanHref).toBe("/user/profile");
  });

  it("leaves the password-reset token to the password-reset page", () => {
    expect(extractDirectLoginParams("https://app.example/auth/password-reset?token=abc")).toEqual({
      params: null,
      cleanHref: "/auth/password-reset?token=abc",
    });
  });

  it("leaves a URL without credentials alone", () => {
    expect(extractDirectLoginParams("https://app.example/terms?x=1#a")).toEqual({
      params: null,
      cleanHref: "/terms?x=1#a",
    });
  });
});
