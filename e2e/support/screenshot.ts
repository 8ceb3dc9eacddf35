// Regenerates docs/screenshot.png, the README's picture of the running app: the profile page of a seeded
// user at 1280×800. Run from the repository root after building the web app:
//   npm run build && node e2e/support/screenshot.ts
// It starts the e2e harness (fresh data directory, local SMTP catcher), seeds the user through the API
// the way the web app does, takes the picture with Debian's Chromium and stops the harness.
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "@playwright/test";
import { API } from "@tonus/contract";
import { E2E_PORT } from "./ports.ts";
import { csrfHeaders, registerViaApi } from "./seed.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const baseURL = `http://127.0.0.1:${E2E_PORT}`;
const output = path.join(root, "docs/screenshot.png");
const photo = path.join(root, "e2e/fixtures/userpic.png");

async function waitForHealthy(deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${baseURL}/healthz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the e2e server did not answer ${baseURL}/healthz in time`);
}

const harness = spawn(process.execPath, ["e2e/support/server.ts"], { cwd: root, stdio: "inherit" });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  await waitForHealthy(Date.now() + 60_000);
  const context = await browser.newContext({
    baseURL,
    locale: "en-US",
    timezoneId: "Europe/Berlin",
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
  });
  const user = { email: "alex.morgan@example.test", password: "Screenshot-pass-2024", name: "Alex Morgan" };
  await registerViaApi(context.request, user, baseURL);
  const headers = await csrfHeaders(context.request, baseURL);
  const profile = await context.request.put(API.profile, {
    data: { date_of_birth: "1988-06-14", gender: "female", height: 168, weight: 61.5 },
    headers,
  });
  if (!profile.ok()) throw new Error(`profile update failed: ${profile.status()} ${await profile.text()}`);
  const upload = await context.request.post(API.userpicUpload, {
    multipart: { file: { name: "userpic.png", mimeType: "image/png", buffer: await readFile(photo) } },
    headers,
  });
  if (!upload.ok()) throw new Error(`photo upload failed: ${upload.status()} ${await upload.text()}`);

  const page = await context.newPage();
  await page.goto("/user/profile");
  await page.getByRole("img", { name: "Your photo" }).waitFor();
  await page.waitForFunction(() =>
    Array.from(document.images).every((img) => img.complete && img.naturalWidth > 0),
  );
  await page.screenshot({ path: output });
  console.log(`wrote ${path.relative(root, output)}`);
} finally {
  await browser.close();
  harness.kill("SIGTERM");
}
