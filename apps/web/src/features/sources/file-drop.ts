import { type DragEvent as ReactDragEvent, type RefObject, useEffect, useRef, useState } from "react";

const carriesFiles = (e: { dataTransfer: DataTransfer | null }) =>
  Boolean(e.dataTransfer && Array.from(e.dataTransfer.types).includes("Files"));

/** Puts `file` in the file input, as if it had been chosen there (the field then names it). */
function showInInput(input: HTMLInputElement | null, file: File) {
  if (!input || typeof DataTransfer === "undefined") return;
  const list = new DataTransfer();
  list.items.add(file);
  input.files = list.files;
}

/**
 * A file dragged from the desktop and dropped anywhere on an import panel is chosen, as the panel's file
 * field would choose it: exports are often found in a folder window already open beside the browser.
 * Only the first of several files is taken (`onFile`'s second argument says how many came); a folder
 * is not taken (`onFolder`). While the panel is on the page, a file dropped beside it is ignored instead
 * of replacing the page with the file, as browsers otherwise do. `over` is true while a file is held
 * over the panel, for its outline.
 */
export function useFileDrop(
  input: RefObject<HTMLInputElement | null>,
  enabled: boolean,
  onFile: (file: File, count: number) => void,
  onFolder: (name: string) => void,
) {
  const [over, setOver] = useState(false);
  // dragenter and dragleave come for every child crossed: the panel is left when they balance.
  const depth = useRef(0);

  useEffect(() => {
    // Beside the panel (the panel's own handlers ran first and cancelled theirs): no drop, and the
    // pointer says so. A drop anywhere, or the file taken out of the window, ends the panel's outline.
    const refuse = (e: DragEvent) => {
      if (!carriesFiles(e) || e.defaultPrevented) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = "none";
    };
    const end = () => {
      depth.current = 0;
      setOver(false);
    };
    const onDrop = (e: DragEvent) => {
      refuse(e);
      end();
    };
    const onLeave = (e: DragEvent) => {
      if (!e.relatedTarget) end();
    };
    window.addEventListener("dragover", refuse);
    window.addEventListener("drop", onDrop);
    window.addEventListener("dragleave", onLeave);
    return () => {
      window.removeEventListener("dragover", refuse);
      window.removeEventListener("drop", onDrop);
      window.removeEventListener("dragleave", onLeave);
    };
  }, []);

  const handlers = {
    onDragEnter: (e: ReactDragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth.current += 1;
      setOver(enabled);
    },
    onDragOver: (e: ReactDragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = enabled ? "copy" : "none";
    },
    onDragLeave: (e: ReactDragEvent) => {
      if (!carriesFiles(e)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    },
    onDrop: (e: ReactDragEvent) => {
      if (!carriesFiles(e)) return;
      e.preventDefault();
      depth.current = 0;
      setOver(false);
      const files = e.dataTransfer.files;
      const first = files[0];
      if (!enabled || !first) return;
      // A folder comes as a file of its own name that cannot be read (an Apple Health export unpacked).
      if (e.dataTransfer.items?.[0]?.webkitGetAsEntry?.()?.isDirectory) {
        onFolder(first.name);
        return;
      }
      showInInput(input.current, first);
      onFile(first, files.length);
    },
  };
  return { over: over && enabled, handlers };
}
