import { type RefObject, useCallback, useEffect, useRef } from "react";

/** Whether the focus is nowhere in particular: on the page's body, where browsers leave it. */
export const focusIsLost = () => !document.activeElement || document.activeElement === document.body;

/** Whether an element that had the focus could still hold it: in the page and not disabled. */
const usable = (element: Element) => element.isConnected && !element.matches(":disabled");

/**
 * Puts the focus back inside `container` when the control that held it there is removed: a view replaced
 * by the next (an upload's Cancel by its outcome), a button by the message saying what it did (Sync now
 * by Connect again). Browsers then leave the focus on the page's body, and a keyboard or screen-reader
 * user would start again from the top. After each render where that happened, `pick(container)` takes
 * the focus, made focusable if it is not. Focus the person moved elsewhere is left alone.
 *
 * What had the focus is remembered from `focusin`. A `focusout` toward an element outside forgets it; one
 * toward nothing forgets it only after a click on the page's background: Chromium sends one while it
 * removes the focused element and when it disables it (a busy button), and the window losing the focus
 * sends one too. A disabled one is still held, and the focus moves when it is removed, not before: what
 * its work brings (a message that takes the focus itself) may come first; a press outside the panel
 * meanwhile forgets it.
 *
 * Returns a check, true from the commit that removed the control until the focus has been moved: a
 * caller that would announce the same change in a live region (from a layout effect, which runs before
 * this hook's effect) leaves it to the focus then.
 */
export function useFocusStaysInside(
  container: RefObject<HTMLElement | null>,
  pick: (node: HTMLElement) => HTMLElement | null,
): () => boolean {
  const held = useRef<Element | null>(null);
  useEffect(() => {
    const node = container.current;
    if (!node) return;
    const onFocusIn = (e: FocusEvent) => {
      held.current = e.target instanceof Element ? e.target : null;
    };
    const onFocusOut = (e: FocusEvent) => {
      const left = e.target;
      if (e.relatedTarget instanceof Node) {
        if (!node.contains(e.relatedTarget)) held.current = null;
      } else if (left instanceof Element) {
        queueMicrotask(() => {
          if (held.current === left && usable(left) && document.hasFocus()) held.current = null;
        });
      }
    };
    // A disabled control lost the focus already: a press outside the panel sends no focusout, and is
    // where the person's attention went.
    const onPointerDown = (e: PointerEvent) => {
      if (!(e.target instanceof Node && node.contains(e.target))) held.current = null;
    };
    node.addEventListener("focusin", onFocusIn);
    node.addEventListener("focusout", onFocusOut);
    document.addEventListener("pointerdown", onPointerDown, true);
    return () => {
      node.removeEventListener("focusin", onFocusIn);
      node.removeEventListener("focusout", onFocusOut);
      document.removeEventListener("pointerdown", onPointerDown, true);
    };
  }, [container]);
  const lostInside = useCallback(
    () => Boolean(held.current && !held.current.isConnected && focusIsLost()),
    [],
  );
  useEffect(() => {
    const node = container.current;
    if (!node || !lostInside()) return;
    const target = pick(node);
    if (!target) return;
    if (!target.matches("button, input, select, textarea, a[href], [tabindex]")) target.tabIndex = -1;
    target.focus();
  });
  return lostInside;
}
