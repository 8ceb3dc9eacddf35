import { ERROR_CODES, type ErrorCode } from "@tonus/contract";

/** The one error services throw; the error handler turns it into the spec's wire shape. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>) {
    super(message ?? code);
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = details;
  }
}
