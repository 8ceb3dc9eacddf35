import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import { changeLanguage } from "../../i18n/index.ts";
import { DateRangePicker } from "./DateRangePicker.tsx";
import { INITIAL_DATE_RANGE } from "./date-range.ts";
import { getDateRange, setDateRange, useDateRange } from "./date-range-store.ts";
import { NoDataNotice } from "./NoDataNotice.tsx";

describe("the no-data notice", () => {
  afterEach(() => {
    cleanup();
    setDateRange(INITIAL_DATE_RANGE);
  });
  /** The notice above the date picker, both on the picker's store, as the dashboard has them. */
  function Page() {
    const state = useDateRange();
    const range =
      state.status === "custom" && state.startDate && state.endDate
        ? { startDate: state.startDate, endDate: state.endDate }
        : { startDate: "2026-10-30", endDate: "2026-11-28" };
    return (
      <>
        <NoDataNotice notice="stale" lastDataDay="2024-02-01" onManualEntry={() => {}} />
        <DateRangePicker state={state} range={range} today="2026-11-28" />
      </>
    );
  }
  const show = () =>
    render(<RouterProvider router={createMemoryRouter([{ path: "*", element: <Page /> }])} />);

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
    // The picker's date fields say the same.
    expect((screen.getByLabelText("Start date") as HTMLInputElement).value).toBe("2024-01-03");
    expect((screen.getByLabelText("End date") as HTMLInputElement).value).toBe("2024-02-01");
  });

  it("keeps refused dates in the fields with their error, until the range changes elsewhere", async () => {
    await changeLanguage("en");
    show();
    const showThem = screen.getByRole("button", { name: "Show the 30 days up to that day" });
    fireEvent.click(showThem);
    const end = screen.getByLabelText("End date") as HTMLInputElement;
    fireEvent.change(end, { target: { value: "2023-12-01" } });
    expect(end.value).toBe("2023-12-01");
    expect(screen.getByRole("alert").textContent).toBe("The start date must not be later than the end date.");
    // The store keeps the last good range.
    expect(getDateRange()).toMatchObject({ startDate: "2024-01-03", endDate: "2024-02-01" });
    fireEvent.click(showThem);
    expect((screen.getByLabelText("End date") as HTMLInputElement).value).toBe("2024-02-01");
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("says it in Russian with the right plural", async () => {
    await changeLanguage("ru");
    show();
    expect(screen.getByRole("button", { name: "Показать 30 дней, заканчивая этим днём" })).toBeTruthy();
  });
});
