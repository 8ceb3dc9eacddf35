import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, within } from "@testing-library/react";
import type { Import } from "@tonus/contract";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { SESSION_QUERY_KEY } from "../auth/use-auth.ts";
import { ImportHistory } from "./ImportHistory.tsx";
import { HISTORY_LIMIT, SOURCES_QUERY_KEY } from "./sources-api.ts";
import { anImport, aReport } from "./test-imports.ts";

/** An earlier import of the Oura entry, `id`.csv, done unless `over` says otherwise. */
const earlier = (id: string, over: Partial<Import> = {}): Import =>
  anImport({
    id,
    source_slug: "oura-ring",
    file_name: `${id}.csv`,
    kind: "csv",
    status: "done",
    created: "2026-11-20T09:00:00Z",
    finished_at: "2026-11-20T09:00:09Z",
    report: aReport({ format: "csv" }),
    ...over,
  });

function show(results: Import[] | "error", shown: string | null) {
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Number.POSITIVE_INFINITY } },
  });
  // Signed out as far as the report's units go: the test asks the server nothing else.
  client.setQueryData(SESSION_QUERY_KEY, { authenticated: false, user_type: "anonymous" });
  if (results !== "error") client.setQueryData([...SOURCES_QUERY_KEY, "history", "oura-ring"], { results });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={["/data-sources/oura-ring"]}>
        <ImportHistory slug="oura-ring" shown={shown} />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("ImportHistory", () => {
  afterEach(() => {
    cleanup();
    vi.unstubAllGlobals();
  });

  it("lists the earlier imports, newest first, without the one the panel shows, in en and ru", async () => {
    await changeLanguage("en");
    const items = [
      earlier("latest", { report: aReport({ imported: 5 }) }),
      earlier("second", { report: aReport({ imported: 1234, duplicates: 2, rejected: 3 }) }),
      earlier("first", { report: aReport({ duplicates: 40 }), finished_at: "2026-11-18T07:30:00Z" }),
    ];
    show(items, "latest");
    expect(screen.getByText("Earlier imports").tagName).toBe("SUMMARY");
    const rows = within(screen.getByRole("list")).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector(".import-history__title")?.textContent)).toEqual([
      "second.csv imported",
      "Nothing new was imported from first.csv",
    ]);
    expect(rows[0]?.textContent).toContain("Values imported: 1,234 · Values already there: 2 · Rejected: 3");
    // Nothing refused, nothing already there: not said.
    expect(rows[1]?.textContent).toMatch(/Values imported: 0 · Values already there: 40$/);
    expect(rows[1]?.querySelector("time")?.getAttribute("datetime")).toBe("2026-11-18T07:30:00Z");
    expect(screen.queryByText(/latest imports are listed/)).toBeNull();
    cleanup();

    await changeLanguage("ru");
    show(items, "latest");
    expect(screen.getByText("Прежние импорты")).toBeTruthy();
    expect(screen.getAllByRole("listitem")[0]?.textContent).toContain(
      "Импортировано значений: 1\u00a0234 · Значения уже были: 2 · Отклонено: 3",
    );
    await changeLanguage("en");
  });

  it("unfolds the whole report of one that says more than its counts, a level below, unannounced", () => {
    show(
      [
        earlier("latest"),
        earlier("broken", {
          report: aReport({
            imported: 3,
            rejected: 1,
            rejections: [{ reason: "invalid_date", line: 7, detail: "31.02.2024" }],
            fatal: { reason: "unexpected_eof" },
          }),
        }),
        earlier("plain", { report: aReport({ imported: 2 }) }),
      ],
      "latest",
    );
    const [broken, plain] = document.querySelectorAll<HTMLElement>(".import-history__item");
    expect(plain?.textContent).not.toContain("Whole report");
    if (!broken) throw new Error("no earlier import listed");
    const whole = within(broken).getByText("Whole report");
    expect(whole.tagName).toBe("SUMMARY");
    const folded = whole.parentElement as HTMLElement;
    expect(
      within(folded).getByRole("heading", { level: 4, name: "broken.csv imported in part" }),
    ).toBeTruthy();
    expect(within(folded).getByRole("heading", { level: 5 }).textContent).toBe("Problems found");
    // Read when the person opens it, not announced as the page loads; no second set of links onward.
    expect(within(folded).queryByRole("alert")).toBeNull();
    expect(within(folded).queryByRole("status")).toBeNull();
    expect(within(folded).queryByRole("navigation")).toBeNull();
  });

  it("shows nothing while the import on the panel is the only one", () => {
    show([earlier("only")], "only");
    expect(screen.queryByText("Earlier imports")).toBeNull();
    cleanup();
    show([], null);
    expect(screen.queryByText("Earlier imports")).toBeNull();
  });

  it("says when only the latest imports are listed", () => {
    show(
      Array.from({ length: HISTORY_LIMIT }, (_, i) => earlier(`imp-${i}`)),
      "imp-0",
    );
    expect(screen.getAllByRole("listitem")).toHaveLength(HISTORY_LIMIT - 1);
    expect(screen.getByText("Only the latest imports are listed.")).toBeTruthy();
  });

  it("says so when the list cannot be loaded", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response(JSON.stringify({ error: "unknown", message: "x" }), { status: 500 })),
    );
    show("error", null);
    expect((await screen.findByRole("alert")).textContent).toBe(
      "Your earlier imports could not be loaded. Reload the page to try again.",
    );
  });
});
