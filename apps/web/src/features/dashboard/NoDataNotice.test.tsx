import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { INITIAL_DATE_RANGE } from "./date-range.ts";
import { getDateRange, setDateRange } from "./date-range-store.ts";
import { NoDataNotice } from "./NoDataNotice.tsx";

describe("the no-data notice", () => {
  afterEach(() => {
    cleanup();
    setDateRange(INITIAL_DATE_RANGE);
  });
  const show = () =>
    render(
      <RouterProvider
        router={createMemoryRouter([
          {
            path: "*",
            element: <NoDataNotice notice="stale" lastDataDay="2024-02-01" onManualEntry={() => {}} />,
          },
        ])}
      />,
    );

  it("opens the 30 days up to the newest data in one click (an old export's import lands there)", async () => {
    await changeLanguage("en");
    show();
    fireEvent.click(screen.getByRole("button", { name: "Show the 30 days up to that day" }));
    expect(getDateRange()).toEqual({
      status: "custom",
      startDate: "2024-01-03",
      endDate: "2024-02-01",
      period: "day",
    });
  });

  it("says it in Russian with the right plural", async () => {
    await changeLanguage("ru");
    show();
    expect(screen.getByRole("button", { name: "Показать 30 дней, заканчивая этим днём" })).toBeTruthy();
  });
});
