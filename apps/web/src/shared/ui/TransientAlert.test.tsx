import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import "../../i18n/index.ts";
import { ALERT_AUTO_CLOSE_MS, showAlert } from "./alert-store.ts";
import { TransientAlert } from "./TransientAlert.tsx";

describe("TransientAlert", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("shows a message in a status region and closes it after 3000 ms", () => {
    render(<TransientAlert />);
    act(() => showAlert("Saved"));
    expect(screen.getByRole("status").textContent).toContain("Saved");
    act(() => vi.advanceTimersByTime(ALERT_AUTO_CLOSE_MS - 1));
    expect(screen.getByRole("status").textContent).toContain("Saved");
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole("status").textContent).not.toContain("Saved");
  });

  it("closes on click", () => {
    render(<TransientAlert />);
    act(() => showAlert("Oops", "error"));
    fireEvent.click(screen.getByRole("button"));
    expect(screen.getByRole("status").textContent).not.toContain("Oops");
  });

  it("uses 3000 ms as the spec says", () => {
    expect(ALERT_AUTO_CLOSE_MS).toBe(3000);
  });
});
