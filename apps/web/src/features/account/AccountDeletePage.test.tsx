import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, ARCHIVE_API, BILLING_API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";
import { DELETE_FINISH_REDIRECT } from "./AccountDeletePage.tsx";

configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

/** The deletion page with a server whose answer to the deletion is `onDelete`; records every call. */
function renderDeletePage(onDelete: () => Response) {
  const calls: string[] = [];
  let signedIn = true;
  configureApiClient({
    fetch: async (input) => {
      const url = String(input);
      calls.push(url);
      if (url.startsWith(API.session))
        return json(200, signedIn ? { authenticated: true, user_type: "full" } : { authenticated: false });
      if (url.startsWith(API.logout)) {
        signedIn = false;
        return json(200, { ok: true });
      }
      if (url.startsWith(BILLING_API.userDelete)) {
        const answer = onDelete();
        if (answer.ok) signedIn = false;
        return answer;
      }
      if (url.startsWith(ARCHIVE_API.archive)) return json(200, { status: "none", id: null });
      return json(404, { code: "not_found" });
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
    initialEntries: ["/user/account-delete"],
  });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { calls, router };
}

async function confirmDeletion() {
  fireEvent.click(await screen.findByRole("button", { name: "Delete my account" }));
  expect(screen.getByText("Do you really want to delete your account")).toBeTruthy();
  fireEvent.click(screen.getByRole("button", { name: "Delete my account forever" }));
}

describe("account deletion page (spec §4, §8)", { timeout: 20_000 }, () => {
  afterEach(() => {
    cleanup();
    localStorage.clear();
  });

  it("signs out and leaves for the logged-out screen when the deletion fails", async () => {
    localStorage.setItem("some-cached-user-data", "x");
    const { calls, router } = renderDeletePage(() =>
      json(500, { error: "Internal error", code: "internal" }),
    );
    await confirmDeletion();
    await waitFor(() => expect(router.state.location.pathname).toBe(DELETE_FINISH_REDIRECT));
    expect(calls.some((c) => c.startsWith(API.logout))).toBe(true);
    expect(localStorage.getItem("some-cached-user-data")).toBeNull();
    expect(await screen.findByText("Your account and all its data have been deleted.")).toBeTruthy();
  });

  it("signs out and redirects when the server cannot be reached either", async () => {
    const { calls, router } = renderDeletePage(() => {
      throw new TypeError("Failed to fetch");
    });
    await confirmDeletion();
    await waitFor(() => expect(router.state.location.pathname).toBe(DELETE_FINISH_REDIRECT));
    expect(calls.filter((c) => c.startsWith(API.logout))).toHaveLength(1);
  });

  it("stays, signed in, with the cancel link while a subscription blocks the deletion", async () => {
    const { calls, router } = renderDeletePage(() =>
      json(409, {
        error: "Unable to delete account (cancel your subscription first)",
        code: "subscription_active",
      }),
    );
    await confirmDeletion();
    expect(await screen.findByText("Unable to delete account (cancel your subscription first)")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Cancel subscription" }).getAttribute("href")).toBe(
      "/payment-cancel",
    );
    expect(router.state.location.pathname).toBe("/user/account-delete");
    expect(calls.some((c) => c.startsWith(API.logout))).toBe(false);
  });

  it("after a deletion clears the browser's side without another call and redirects", async () => {
    const { calls, router } = renderDeletePage(() => json(200, { ok: true }));
    await confirmDeletion();
    await waitFor(() => expect(router.state.location.pathname).toBe(DELETE_FINISH_REDIRECT));
    expect(calls.some((c) => c.startsWith(API.logout))).toBe(false);
  });
});
