import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    name: "hrv",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    environment: "node",
    // The Welltory parity run and the CLI tests (real processes) take seconds on a busy 2-core machine.
    testTimeout: 30_000,
  },
});
