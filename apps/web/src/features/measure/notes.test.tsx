import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, type MeasurementDetail } from "@tonus/contract";
import type { ReactNode } from "react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { EditNotesCard } from "./EditNotesCard.tsx";
import { setQueueOwner } from "./measure-api.ts";
import { SaveForm } from "./SaveForm.tsx";
import { parseLabels } from "./TagsField.tsx";

configure({ asyncUtilTimeout: 5000 });

const OWNER = "1c0ffee0-0000-4000-8000-000000000001";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/** The server: the signed-in person, and what each write carried. */
function server() {
  const bodies: { method: string; body: Record<string, unknown> }[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input);
      if (path.startsWith(API.profile)) return json(200, { id: OWNER });
      if (init?.method === "POST" || init?.method === "PATCH") {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>;
        bodies.push({ method: init.method, body });
        return json(init.method === "POST" ? 201 : 200, { ...DETAIL, ...body, id: "m-1" });
      }
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
  return bodies;
}

function renderWithClient(node: ReactNode) {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>{node}</MemoryRouter>
    </QueryClientProvider>,
  );
}

const DETAIL = {
  id: "m-1",
  client_id: "5d0a3a5e-0000-4000-8000-000000000001",
  feel: 3,
  mood: null,
  tags: ["morning"],
  labels: ["after night shift"],
} as unknown as MeasurementDetail;

afterEach(async () => {
  cleanup();
  setQueueOwner(null);
  localStorage.clear();
  await changeLanguage("en");
});

describe("labels", () => {
  it("are typed like tags: comma-separated, trimmed, once each", () => {
    expect(parseLabels(" after night shift, before exam,,after night shift ")).toEqual([
      "after night shift",
      "before exam",
    ]);
    expect(parseLabels("")).toEqual([]);
  });

  it("go with a new measurement from the save form", async () => {
    const bodies = server();
    const onSaved = vi.fn();
    renderWithClient(
      <SaveForm
        captured={{
          rrMs: Array.from({ length: 30 }, () => 800),
          rrBreaks: [],
          source: "file",
          device: null,
          startedAt: "2026-11-23T08:00:00.000Z",
        }}
        onSaved={onSaved}
        onDiscard={vi.fn()}
      />,
    );
    fireEvent.change(screen.getByLabelText("Tags"), { target: { value: "morning" } });
    fireEvent.change(screen.getByLabelText("Labels"), {
      target: { value: "after night shift, before exam" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith("m-1"));
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.body).toMatchObject({
      tags: ["morning"],
      labels: ["after night shift", "before exam"],
    });
  });

  it("can be changed afterwards on the detail page's notes card, in Russian", async () => {
    await changeLanguage("ru");
    const bodies = server();
    renderWithClient(<EditNotesCard m={DETAIL} />);
    const labels = screen.getByLabelText("Метки") as HTMLInputElement;
    expect(labels.value).toBe("after night shift");
    expect(screen.getByText(/Ваши заметки к этому измерению/)).toBeTruthy();
    fireEvent.change(labels, { target: { value: "после ночной смены, перед экзаменом" } });
    fireEvent.click(screen.getByRole("button", { name: "Сохранить изменения" }));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toEqual({
      method: "PATCH",
      body: { feel: 3, mood: null, tags: ["morning"], labels: ["после ночной смены", "перед экзаменом"] },
    });
  });
});
