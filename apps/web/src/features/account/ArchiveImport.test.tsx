import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen } from "@testing-library/react";
import { API, ARCHIVE_API } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { configureApiClient } from "../../shared/api/client.ts";

configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

function renderAt(path: string, respond: (path: string) => Response) {
  const calls: { path: string; body: unknown }[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const url = String(input);
      calls.push({ path: url, body: init?.body ?? null });
      if (url.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      return respond(url);
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return calls;
}

describe("archive import on the data page", { timeout: 20_000 }, () => {
  afterEach(() => cleanup());

  it("uploads the chosen zip as a file and says what was restored, or why not", async () => {
    let attempt = 0;
    const calls = renderAt("/user/account-delete", (path) => {
      if (path.startsWith(ARCHIVE_API.import))
        return ++attempt === 1
          ? json(409, { error: "not empty", code: "account_not_empty" })
          : json(200, { ok: true, restored: { bp_readings: 2, measurements: 1 } });
      if (path.startsWith(ARCHIVE_API.archive)) return json(200, { status: "none", id: null });
      return json(404, { code: "not_found" });
    });
    const input = (await screen.findByLabelText("Archive file (zip)")) as HTMLInputElement;
    fireEvent.click(screen.getByRole("button", { name: "Restore" }));
    expect(await screen.findByText("Choose the archive file first.")).toBeTruthy();
    const file = new File([new Uint8Array([0x50, 0x4b, 5, 6])], "tonus-data.zip", {
      type: "application/zip",
    });
    fireEvent.change(input, { target: { files: [file] } });
    fireEvent.click(screen.getByRole("button", { name: "Restore" }));
    expect(
      await screen.findByText(
        "This account already holds data: an archive can only be restored into an empty account.",
      ),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Restore" }));
    expect(await screen.findByText("Restored 3 records.")).toBeTruthy();
    const upload = calls.find((c) => c.path.startsWith(ARCHIVE_API.import));
    expect(upload?.body).toBeInstanceOf(FormData);
    const sent = upload?.body as FormData;
    expect((sent.get("file") as File).name).toBe("tonus-data.zip");
  });
});
