import { expect, test } from "@playwright/test";

test("the server reports healthy and answers unknown API paths with the error shape", async ({ request }) => {
  const health = await request.get("/healthz");
  expect(health.ok()).toBe(true);
  expect(await health.json()).toEqual({ status: "ok", database: "pglite" });

  const missing = await request.get("/dashboard_api/v1/does-not-exist/");
  expect(missing.status()).toBe(404);
  expect(await missing.json()).toMatchObject({ code: "not_found", error: "Not found" });
  expect(missing.headers()["cache-control"]).toBe("no-store");
});
