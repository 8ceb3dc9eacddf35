import { defineConfig } from "@playwright/test";
import { E2E_MAIL_PORT, E2E_PORT } from "./support/ports.ts";

// Debian's Chromium: Playwright's own browser download does not work on this machine kind.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export default defineConfig({
  testDir: "./specs",
  outputDir: "../test-results/playwright",
  fullyParallel: true,
  workers: 2,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  // Generous waits: the suite shares two cores with builds and other test runs; nothing here sleeps.
  expect: { timeout: 15_000 },
  reporter: [["list"], ["json", { outputFile: "../test-results/e2e.json" }]],
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS },
    trace: "retain-on-failure",
  },
  projects: [
    { name: "chromium", testIgnore: /measure-camera\.spec\.ts$/ },
    {
      // The fake-camera measurement times pulses from camera frames; Chromium drops frames while the
      // page's main thread is busy, so it runs once every other spec is done (dependencies), alone
      // (one worker), without retries (a failure is reported, not measured away) and without a trace.
      // Run it by itself with `--project=camera --no-deps`.
      name: "camera",
      testMatch: /measure-camera\.spec\.ts$/,
      dependencies: ["chromium"],
      workers: 1,
      fullyParallel: false,
      retries: 0,
      use: { trace: "off" },
    },
  ],
  webServer: {
    command: "node e2e/support/server.ts",
    cwd: "..",
    url: `http://127.0.0.1:${E2E_PORT}/healthz`,
    timeout: 120_000,
    reuseExistingServer: false,
    // SIGTERM lets the harness stop Tonus cleanly and remove its temporary data directory.
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
    stdout: "ignore",
    stderr: "pipe",
    env: { E2E_MAIL_PORT: String(E2E_MAIL_PORT) },
  },
});
