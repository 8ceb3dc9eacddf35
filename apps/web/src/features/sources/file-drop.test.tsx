import { cleanup, createEvent, fireEvent, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useFileDrop } from "./file-drop.ts";

function Panel({
  enabled,
  onFile,
  onFolder = () => {},
}: {
  enabled: boolean;
  onFile: (file: File, count: number) => void;
  onFolder?: (name: string) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const drop = useFileDrop(input, enabled, onFile, onFolder);
  return (
    <div data-testid="panel" data-over={drop.over} {...drop.handlers}>
      <input ref={input} type="file" aria-label="File" />
      <p>Inside</p>
    </div>
  );
}

const files = (...names: string[]) => ({
  types: ["Files"],
  files: names.map((name) => new File(["date,steps\n"], name, { type: "text/csv" })),
  items: names.map(() => ({ webkitGetAsEntry: () => ({ isDirectory: false }) })),
  dropEffect: "",
});
type Carried = ReturnType<typeof files>;

/**
 * Sends a drag event carrying `carried` itself (testing-library would copy it into a DataTransfer whose
 * `dropEffect` the handlers' writes do not reach), from `relatedTarget` (jsdom has no DragEvent to take
 * it). Returns whether the event was cancelled.
 */
function drag(
  kind: "dragEnter" | "dragOver" | "dragLeave" | "drop",
  target: Element,
  carried: Carried | { types: string[]; files: File[]; items: unknown[]; dropEffect: string },
  relatedTarget: Element | null = null,
) {
  const event = createEvent[kind](target);
  Object.defineProperty(event, "dataTransfer", { value: carried });
  Object.defineProperty(event, "relatedTarget", { value: relatedTarget });
  fireEvent(target, event);
  return event.defaultPrevented;
}

const folder = (name: string) => ({
  ...files(name),
  items: [{ webkitGetAsEntry: () => ({ isDirectory: true }) }],
});

describe("useFileDrop", () => {
  afterEach(cleanup);

  it("chooses the first dropped file and says how many came", () => {
    const onFile = vi.fn();
    render(<Panel enabled onFile={onFile} />);
    const panel = screen.getByTestId("panel");
    drag("dragEnter", panel, files("a.csv", "b.csv"));
    expect(panel.dataset.over).toBe("true");
    const over = files("a.csv", "b.csv");
    drag("dragOver", panel, over);
    expect(over.dropEffect).toBe("copy");
    drag("drop", panel, files("a.csv", "b.csv"));
    expect(onFile).toHaveBeenCalledTimes(1);
    expect(onFile.mock.calls[0]?.[0].name).toBe("a.csv");
    expect(onFile.mock.calls[0]?.[1]).toBe(2);
    expect(panel.dataset.over).toBe("false");
  });

  it("stays outlined while the file crosses the panel's children, until it leaves the panel", () => {
    render(<Panel enabled onFile={() => {}} />);
    const panel = screen.getByTestId("panel");
    const child = screen.getByText("Inside");
    drag("dragEnter", panel, files("a.csv"));
    drag("dragEnter", child, files("a.csv"), panel);
    drag("dragLeave", panel, files("a.csv"), child);
    expect(panel.dataset.over).toBe("true");
    drag("dragLeave", child, files("a.csv"), document.body);
    expect(panel.dataset.over).toBe("false");
  });

  it("takes nothing while the panel is busy, and leaves other drags (text, links) alone", () => {
    const onFile = vi.fn();
    const { rerender } = render(<Panel enabled={false} onFile={onFile} />);
    const panel = screen.getByTestId("panel");
    drag("dragEnter", panel, files("a.csv"));
    expect(panel.dataset.over).toBe("false");
    const busy = files("a.csv");
    drag("dragOver", panel, busy);
    expect(busy.dropEffect).toBe("none");
    drag("drop", panel, files("a.csv"));
    expect(onFile).not.toHaveBeenCalled();

    rerender(<Panel enabled onFile={onFile} />);
    const text = { types: ["text/plain"], files: [], items: [], dropEffect: "" };
    drag("dragOver", panel, text);
    expect(text.dropEffect).toBe("");
    drag("drop", panel, text);
    expect(onFile).not.toHaveBeenCalled();
  });

  it("does not take a folder, and says so", () => {
    const onFile = vi.fn();
    const onFolder = vi.fn();
    render(<Panel enabled onFile={onFile} onFolder={onFolder} />);
    drag("drop", screen.getByTestId("panel"), folder("apple_health_export"));
    expect(onFile).not.toHaveBeenCalled();
    expect(onFolder).toHaveBeenCalledWith("apple_health_export");
  });

  it("keeps a file dropped beside the panel from replacing the page, while the panel is shown", () => {
    const { unmount } = render(<Panel enabled onFile={() => {}} />);
    const beside = files("a.csv");
    drag("dragOver", document.body, beside);
    // No drop there, and the pointer says so.
    expect(beside.dropEffect).toBe("none");
    const dropBeside = () => drag("drop", document.body, files("a.csv"));
    expect(dropBeside()).toBe(true);
    unmount();
    expect(dropBeside()).toBe(false);
  });

  it("drops the outline when the file leaves the window or is dropped elsewhere, missed leave events or not", () => {
    render(<Panel enabled onFile={() => {}} />);
    const panel = screen.getByTestId("panel");
    drag("dragEnter", panel, files("a.csv"));
    expect(panel.dataset.over).toBe("true");
    drag("dragLeave", document.body, files("a.csv"));
    expect(panel.dataset.over).toBe("false");
    drag("dragEnter", panel, files("a.csv"));
    drag("drop", document.body, files("a.csv"));
    expect(panel.dataset.over).toBe("false");
  });
});
