import type { Rejection } from "./types.ts";

/**
 * Thrown by an input stream (a zip entry reader) when the input itself is bad; importers catch it and
 * end their report with `rejection` as the fatal problem instead of letting it escape.
 */
export class ImportInputError extends Error {
  readonly rejection: Rejection;

  constructor(rejection: Rejection) {
    super(`${rejection.reason}${rejection.detail ? `: ${rejection.detail}` : ""}`);
    this.name = "ImportInputError";
    this.rejection = rejection;
  }
}
