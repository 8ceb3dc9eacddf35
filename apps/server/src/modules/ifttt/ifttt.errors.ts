/** An IFTTT protocol error: `{errors: [{message}]}` (plus `status: "SKIP"` for a permanent action failure). */
export class IftttError extends Error {
  readonly status: number;
  readonly skip: boolean;
  constructor(status: number, message: string, skip = false) {
    super(message);
    this.status = status;
    this.skip = skip;
  }
}
