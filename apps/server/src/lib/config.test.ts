import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";

describe("loadConfig", () => {
  it("applies the documented defaults to an empty environment", () => {
    const config = loadConfig({}, "/srv/tonus");
    expect(config.PORT).toBe(8080);
    expect(config.BILLING_MODE).toBe("off");
    expect(config.MAINTENANCE).toBe(false);
    expect(config.DATA_DIR).toBe(path.resolve("/srv/tonus", "data"));
    expect(config.filesDir).toBe(path.resolve("/srv/tonus", "data/files"));
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.academyContentDir).toBeUndefined();
  });

  it("resolves a relative academy content folder against the working directory", () => {
    expect(loadConfig({ ACADEMY_CONTENT_DIR: "courses" }, "/srv/tonus").academyContentDir).toBe(
      path.resolve("/srv/tonus", "courses"),
    );
  });

  it.each([
    ["PORT", "abc"],
    ["PORT", "70000"],
    ["BILLING_MODE", "bogus"],
    ["MAINTENANCE", "yes"],
    ["SECRET_KEY", "short"],
    ["DATABASE_URL", "not a url"],
  ])("names %s in a one-line error when it is %j", (name, value) => {
    const read = () => loadConfig({ [name]: value });
    expect(read).toThrow(ConfigError);
    expect(read).toThrow(new RegExp(`^Invalid configuration: ${name}: [^\\n]+$`));
  });

  it("reads 1 and true as on, and an empty URL as unset", () => {
    const config = loadConfig({ MAINTENANCE: "1", ANALYTICS_ENABLED: "true", SMTP_URL: "" });
    expect(config.MAINTENANCE).toBe(true);
    expect(config.ANALYTICS_ENABLED).toBe(true);
    expect(config.SMTP_URL).toBeUndefined();
  });
});
