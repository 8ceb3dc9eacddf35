import { defineConfig } from "vitest/config";

export default defineConfig({
  test: { name: "hrv", include: ["src/**/*.test.ts", "test/**/*.test.ts"], environment: "node" },
});
