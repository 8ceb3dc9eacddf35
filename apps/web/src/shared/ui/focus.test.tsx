import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { useLayoutEffect, useRef, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { useFocusStaysInside } from "./focus.ts";

let setShown: (shown: boolean) => void = () => {};
/** What the hook's check said after each commit (from a layout effect, as a caller announcing would). */
let checks: boolean[] = [];
let check: () => boolean = () => false;
let rerender: () => void = () => {};

/** A panel whose button gives way to a message, as Sync now gives way to Connect again. */
function Panel() {
  const [shown, set] = useState(true);
  setShown = set;
  const [, setTick] = useState(0);
  rerender = () => setTick((n) => n + 1);
  const ref = useRef<HTMLElement>(null);
  const moves = useFocusStaysInside(ref, (n) => n.querySelector("p") ?? n.querySelector("h2"));
  check = moves;
  useLayoutEffect(() => {
    checks.push(moves());
  });
  return (
    <section ref={ref}>
      <h2>Panel</h2>
      {shown ? <button type="button">Sync now</button> : <p>Access refused</p>}
    </section>
  );
}

/**
 * Removes the button as Chromium does (jsdom sends no event): a focusout toward nothing while the button
 * is still in the page, from inside the removal. React's own scheduling is used, not `act`, so that
 * microtasks run between the commit and the effects as they do in a browser.
 */
async function removeAsChromium(button: HTMLElement) {
  const parent = button.parentElement as HTMLElement;
  const removeChild = parent.removeChild.bind(parent);
  parent.removeChild = <T extends Node>(child: T): T => {
    if (child instanceof HTMLElement && child === document.activeElement)
      child.dispatchEvent(new FocusEvent("focusout", { bubbles: true, relatedTarget: null }));
    return removeChild(child);
  };
  const actEnvironment = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean };
  actEnvironment.IS_REACT_ACT_ENVIRONMENT = false;
  try {
    setShown(false);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Sync now" })).toBeNull());
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    actEnvironment.IS_REACT_ACT_ENVIRONMENT = true;
  }
}

describe("useFocusStaysInside", () => {
  afterEach(cleanup);

  it("moves the focus to what replaced the removed control, even after Chromium's focusout", async () => {
    render(
      <>
        <Panel />
        <button type="button">Elsewhere</button>
      </>,
    );
    const button = screen.getByRole("button", { name: "Sync now" });
    act(() => button.focus());
    await removeAsChromium(button);
    expect(document.activeElement).toBe(screen.getByText("Access refused"));
    expect(screen.getByText("Access refused").tabIndex).toBe(-1);
  });

  it("holds a control disabled while it had the focus (Chromium drops it) and moves the focus once it is removed", async () => {
    render(<Panel />);
    const button = screen.getByRole("button", { name: "Sync now" }) as HTMLButtonElement;
    act(() => button.focus());
    // Chromium drops the focus of a button it disables: a focusout toward nothing, the button stays
    // (jsdom keeps it, so the blur is done here; the button is disabled by the time microtasks run).
    await act(async () => {
      button.blur();
      button.disabled = true;
    });
    expect(document.activeElement).toBe(document.body);
    // Not before: what the button's work brings may take the focus itself.
    act(() => rerender());
    expect(document.activeElement).toBe(document.body);
    act(() => setShown(false));
    expect(document.activeElement).toBe(screen.getByText("Access refused"));
  });

  it("forgets a disabled control when the person presses outside the panel before it is removed", async () => {
    render(
      <>
        <Panel />
        <div>Background</div>
      </>,
    );
    const button = screen.getByRole("button", { name: "Sync now" }) as HTMLButtonElement;
    act(() => button.focus());
    await act(async () => {
      button.blur();
      button.disabled = true;
    });
    // The focus is already on the body: the press sends no focusout.
    fireEvent.pointerDown(screen.getByText("Background"));
    act(() => setShown(false));
    expect(document.activeElement).toBe(document.body);
  });

  it("tells a layout effect of the commit that removed the control that the focus is about to move", () => {
    render(<Panel />);
    const button = screen.getByRole("button", { name: "Sync now" });
    act(() => button.focus());
    checks = [];
    act(() => setShown(false));
    expect(checks).toEqual([true]);
    expect(document.activeElement).toBe(screen.getByText("Access refused"));
    expect(check()).toBe(false);
  });

  it("leaves alone a focus the person moved out of the panel", () => {
    render(
      <>
        <Panel />
        <button type="button">Elsewhere</button>
      </>,
    );
    act(() => screen.getByRole("button", { name: "Sync now" }).focus());
    const elsewhere = screen.getByRole("button", { name: "Elsewhere" });
    act(() => elsewhere.focus());
    checks = [];
    act(() => setShown(false));
    expect(document.activeElement).toBe(elsewhere);
    expect(checks).toEqual([false]);
  });

  it("does not pull the focus in when it was on the page's body before the control went", async () => {
    render(<Panel />);
    const button = screen.getByRole("button", { name: "Sync now" });
    act(() => button.focus());
    // A click on the page's background: the focus leaves toward nothing, the button stays.
    await act(async () => button.blur());
    expect(document.activeElement).toBe(document.body);
    act(() => setShown(false));
    expect(document.activeElement).toBe(document.body);
  });
});
