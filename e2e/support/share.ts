// The share pages (RELIABILITY H1/H3): opened by a link, they are served unindexed, uncached and without
// a referrer, and load nothing from another origin.
import { expect, type Page } from "@playwright/test";

/**
 * Opens a share link in `page`, checks the page response's headers, and returns a reader of every
 * request the page made to another origin since (call it once the page has shown its content).
 */
export async function openSharePage(page: Page, address: string): Promise<() => string[]> {
  const origin = new URL(address).origin;
  const requested: string[] = [];
  page.on("request", (request) => requested.push(request.url()));
  const response = await page.goto(address);
  const headers = response?.headers() ?? {};
  expect(response?.status()).toBe(200);
  expect(headers["x-robots-tag"]).toBe("noindex, nofollow");
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["cache-control"]).toBe("no-store");
  return () => requested.filter((url) => !url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url));
}
