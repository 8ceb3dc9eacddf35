import { useEffect, useSyncExternalStore } from "react";

// The page's subject (a course, a material, a data source) once its data has loaded, for the document
// title: "Oura Ring · Tonus" says more in a tab or a history list than "Data source · Tonus". The route
// gate writes the title from its own key and from this, so neither overwrites the other (a page's effects
// run before its parents', and both run again when the language changes).
let subject: string | null = null;
const listeners = new Set<() => void>();

function setSubject(next: string | null) {
  if (subject === next) return;
  subject = next;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Names the page's subject while the page is shown; nothing while `name` is not known yet. */
export function usePageSubject(name: string | null | undefined): void {
  useEffect(() => {
    if (!name) return;
    setSubject(name);
    // Only its own: a page hidden behind a loading one may clean up after the next page named its subject.
    return () => {
      if (subject === name) setSubject(null);
    };
  }, [name]);
}

/** The subject the shown page named, if any. */
export function useNamedPageSubject(): string | null {
  return useSyncExternalStore(subscribe, () => subject);
}
