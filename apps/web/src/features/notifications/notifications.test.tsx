import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { API, NOTIFICATIONS_API, type NotificationSettings } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { findRoute } from "../../app/routes.ts";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";
import { TransientAlert } from "../../shared/ui/TransientAlert.tsx";
import { NotificationsCard } from "./NotificationsCard.tsx";
import { changesOf, orderedWeekdays, toggleDay } from "./settings-draft.ts";

configure({ asyncUtilTimeout: 5000 });

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

const OFF: NotificationSettings = {
  weekly_report: false,
  weekly_report_day: 1,
  reminders: false,
  reminder_time: "08:00",
  reminder_days: [1, 2, 3, 4, 5, 6, 7],
  product_news: false,
};

type Call = { method: string; body: unknown };

function mockApi(settings: NotificationSettings | "fail", calls: Call[]) {
  let current = settings;
  configureApiClient({
    fetch: async (input, init) => {
      const path = String(input).split("?")[0] ?? "";
      const method = init?.method ?? "GET";
      if (path === API.session) return json(200, { authenticated: true, user_type: "full" });
      if (path === API.profile)
        return json(200, {
          id: "u-1",
          email: "ann@example.test",
          newsletter_language: "en",
          timezone: "America/New_York",
          units: "metric",
        });
      if (path === NOTIFICATIONS_API.settings) {
        if (current === "fail") return json(500, { error: "Internal Server Error", code: "internal" });
        if (method === "PUT") {
          const body = JSON.parse(String(init?.body)) as Partial<NotificationSettings>;
          calls.push({ method, body });
          current = { ...current, ...body };
        }
        return json(200, current);
      }
      return json(404, { error: "Not found", code: "not_found" });
    },
  });
}

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      {
        path: "*",
        element: (
          <>
            <RouteGate />
            <TransientAlert />
          </>
        ),
      },
    ],
    { initialEntries: [path] },
  );
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return router;
}

afterEach(async () => {
  cleanup();
  await changeLanguage("en");
});

describe("the notification settings page", () => {
  it("is a signed-in page with the profile's side menu", () => {
    expect(findRoute("/user/notifications")).toMatchObject({ access: "auth", hasSideMenu: true });
  });

  it("shows the saved settings and saves only what changed", async () => {
    const calls: Call[] = [];
    mockApi({ ...OFF, product_news: true }, calls);
    renderAt("/user/notifications");
    expect(await screen.findByText(/We write to ann@example.test in English/)).toBeTruthy();
    expect(screen.getByText(/America\/New York/)).toBeTruthy();
    const news = screen.getByRole("checkbox", { name: "Send me product news" }) as HTMLInputElement;
    expect(news.checked).toBe(true);
    const day = screen.getByRole("combobox", { name: "Day of the week" }) as HTMLSelectElement;
    expect(day.disabled).toBe(true);
    // Sunday first in English (spec §9).
    expect(within(day).getAllByRole("option")[0]?.textContent).toBe("Sunday");
    expect(
      screen.getByText("It arrives at 8:00 AM on that day and covers the seven days before it."),
    ).toBeTruthy();

    fireEvent.click(screen.getByRole("checkbox", { name: "Send me a weekly report" }));
    fireEvent.change(day, { target: { value: "3" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() =>
      expect(calls).toEqual([{ method: "PUT", body: { weekly_report: true, weekly_report_day: 3 } }]),
    );
    expect(await screen.findByText("Changes saved")).toBeTruthy();
  });

  it("asks for a reminder day before saving, in Russian, with Monday first", async () => {
    await changeLanguage("ru");
    const calls: Call[] = [];
    mockApi({ ...OFF, reminder_days: [2] }, calls);
    renderAt("/user/notifications");
    const enable = await screen.findByRole("checkbox", { name: "Напоминать об измерении" });
    const days = screen.getByRole("group", { name: "Дни" });
    const boxes = within(days).getAllByRole("checkbox");
    expect(boxes.map((b) => b.parentElement?.textContent)).toEqual([
      "понедельник",
      "вторник",
      "среда",
      "четверг",
      "пятница",
      "суббота",
      "воскресенье",
    ]);
    fireEvent.click(enable);
    fireEvent.click(within(days).getByRole("checkbox", { name: "вторник" }));
    fireEvent.click(screen.getByRole("button", { name: "Сохранить" }));
    expect(await screen.findByText("Выберите хотя бы один день для напоминаний.")).toBeTruthy();
    expect(calls).toEqual([]);
    fireEvent.click(within(days).getByRole("checkbox", { name: "пятница" }));
    fireEvent.change(screen.getByLabelText("Время"), { target: { value: "21:15" } });
    fireEvent.click(screen.getByRole("button", { name: "Сохранить" }));
    await waitFor(() =>
      expect(calls).toEqual([
        { method: "PUT", body: { reminders: true, reminder_time: "21:15", reminder_days: [5] } },
      ]),
    );
  });

  it("says when the settings cannot be loaded", async () => {
    mockApi("fail", []);
    renderAt("/user/notifications");
    expect(
      await screen.findByText("Could not load your notification settings. Please reload the page."),
    ).toBeTruthy();
  });
});

describe("the profile's notifications card", () => {
  it("lists what is switched on and links to the settings", async () => {
    mockApi(
      { ...OFF, weekly_report: true, weekly_report_day: 7, reminders: true, reminder_time: "19:30" },
      [],
    );
    const router = createMemoryRouter([{ path: "*", element: <NotificationsCard /> }]);
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("Weekly report on Sunday")).toBeTruthy();
    expect(screen.getByText("Measurement reminders at 7:30 PM")).toBeTruthy();
    expect(screen.getByRole("link", { name: "Notification settings" }).getAttribute("href")).toBe(
      "/user/notifications",
    );
  });
});

describe("settings drafts", () => {
  it("orders weekdays by the language's week start and keeps days ascending", () => {
    expect(orderedWeekdays("ru")).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(orderedWeekdays("en")).toEqual([7, 1, 2, 3, 4, 5, 6]);
    expect(toggleDay([1, 5], 3)).toEqual([1, 3, 5]);
    expect(toggleDay([1, 3, 5], 3)).toEqual([1, 5]);
  });

  it("sends nothing when nothing changed", () => {
    expect(changesOf(OFF, OFF)).toEqual({});
    expect(changesOf({ ...OFF, reminder_days: [1] }, OFF)).toEqual({ reminder_days: [1] });
  });
});
