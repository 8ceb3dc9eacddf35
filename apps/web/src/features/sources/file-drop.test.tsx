import { cleanup, createEvent, fireEvent, render, screen } from "@testing-library/react";
import { useRef } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useFileDrop } from "./file-drop.ts";

function Panel({ enabled, onFile }: { enabled: boolean; onFile: (file: File, count: number) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const drop = useFileDrop(input, enabled, onFile);
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
  dropEffect: "none",
});

describe("useFileDrop", () => {
  afterEach(cleanup);

  it("chooses the first dropped file and says how many came", () => {
    const onFile = vi.fn();
    render(<Panel enabled onFile={onFile} />);
    const panel = screen.getByTestId("panel");
    fireEvent.dragEnter(panel, { dataTransfer: files("a.csv", "b.csv") });
    expect(panel.dataset.over).toBe("true");
    // Not cancelled, the browser would refuse the drop.
    expect(fireEvent.dragOver(panel, { dataTransfer: files("a.csv", "b.csv") })).toBe(false);
    fireEvent.drop(panel, { dataTransfer: files("a.csv", "b.csv") });
    expect(onFile).toHaveBeenCalledTimes(1);
    expect(onFile.mock.calls[0]?.[0].name).toBe("a.csv");
    expect(onFile.mock.calls[0]?.[1]).toBe(2);
    expect(panel.dataset.over).toBe("false");
  });

  it("stays outlined while the file crosses the panel's children, until it leaves the panel", () => {
    render(<Panel enabled onFile={() => {}} />);
    const panel = screen.getByTestId("panel");
    const child = screen.getByText("Inside");
    fireEvent.dragEnter(panel, { dataTransfer: files("a.csv") });
    fireEvent.dragEnter(child, { dataTransfer: files("a.csv") });
    fireEvent.dragLeave(panel, { dataTransfer: files("a.csv") });
    expect(panel.dataset.over).toBe("true");
    fireEvent.dragLeave(child, { dataTransfer: files("a.csv") });
    expect(panel.dataset.over).toBe("false");
  });

  it("takes nothing while the panel is busy, and leaves other drags (text, links) alone", () => {
    const onFile = vi.fn();
    const { rerender } = render(<Panel enabled={false} onFile={onFile} />);
    const panel = screen.getByTestId("panel");
    fireEvent.dragEnter(panel, { dataTransfer: files("a.csv") });
    expect(panel.dataset.over).toBe("false");
    fireEvent.drop(panel, { dataTransfer: files("a.csv") });
    expect(onFile).not.toHaveBeenCalled();

    rerender(<Panel enabled onFile={onFile} />);
    const text = { types: ["text/plain"], files: [] };
    expect(fireEvent.dragOver(panel, { dataTransfer: text })).toBe(true);
    fireEvent.drop(panel, { dataTransfer: text });
    expect(onFile).not.toHaveBeenCalled();
  });

  it("keeps a file dropped beside the panel from replacing the page, while the panel is shown", () => {
    const { unmount } = render(<Panel enabled onFile={() => {}} />);
    const dropBeside = () => {
      const event = createEvent.drop(document.body, { dataTransfer: files("a.csv") });
      fireEvent(document.body, event);
      return event.defaultPrevented;
    };
    expect(dropBeside()).toBe(true);
    unmount();
    expect(dropBeside()).toBe(false);
  });
});
