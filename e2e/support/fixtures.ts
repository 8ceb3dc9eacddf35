import path from "node:path";
import { test as base } from "@playwright/test";
import { E2E_PORT } from "./ports.ts";
import { newUser, registerViaApi } from "./seed.ts";

/**
 * `signedInState`: a browser storage state signed in as an account registered once per worker, for
 * specs that only look at pages (registering is the slow part). A test that ends the session registers
 * its own account instead.
 */
export const test = base.extend<object, { signedInState: string }>({
  signedInState: [
    async ({ browser }, use, workerInfo) => {
      const baseURL = `http://127.0.0.1:${E2E_PORT}`;
      const context = await browser.newContext({ baseURL });
      await registerViaApi(context.request, newUser(`worker${workerInfo.workerIndex}`), baseURL);
      const file = path.join(workerInfo.project.outputDir, `signed-in-${workerInfo.workerIndex}.json`);
      await context.storageState({ path: file });
      await context.close();
      await use(file);
    },
    { scope: "worker" },
  ],
});

export { expect } from "@playwright/test";
