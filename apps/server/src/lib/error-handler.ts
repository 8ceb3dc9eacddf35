import type { ApiErrorBody } from "@tonus/contract";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError } from "./app-error.ts";
import { pickLocale, translateOptional } from "./i18n.ts";

type Issue = { path: string; message: string };

function validationIssues(err: FastifyError): Issue[] {
  if (!hasZodFastifySchemaValidationErrors(err)) return [];
  return err.validation.map((v) => ({
    path: `${err.validationContext ?? "body"}${v.instancePath.replaceAll("/", ".")}`,
    message: v.message ?? "invalid",
  }));
}

/** Maps Fastify's own client errors (bad JSON, too large, wrong content type) to our codes. */
function fromFastifyError(err: FastifyError): AppError | undefined {
  const status = err.statusCode ?? 500;
  if (status === 413) return new AppError("payload_too_large", "Request body is too large");
  if (status === 429) return new AppError("rate_limited", "Too many requests, try again later");
  if (status === 503) return new AppError("unavailable", "Service temporarily unavailable");
  if (status >= 400 && status < 500) return new AppError("validation_failed", err.message);
  return undefined;
}

/**
 * The one error handler: AppError → its status and code; validation → 400 with field issues; anything
 * unexpected → logged with the request id and answered 500 "Internal Server Error" without internals.
 */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let body: ApiErrorBody;
    let status: number;
    const issues = validationIssues(err);
    const known = err instanceof AppError ? err : issues.length ? undefined : fromFastifyError(err);
    if (issues.length) {
      status = 400;
      body = {
        error: issues.map((i) => `${i.path}: ${i.message}`).join("; "),
        code: "validation_failed",
        issues,
      };
    } else if (known) {
      status = known.status;
      const { retryAfterS, ...details } = known.details ?? {};
      if (typeof retryAfterS === "number") reply.header("retry-after", String(retryAfterS));
      // Russian-preferring browsers get the catalogue's text for the code; English keeps the thrown message.
      const locale = pickLocale(request.headers["accept-language"]);
      const localized = locale === "ru" ? translateOptional("ru", `errors.${known.code}`) : undefined;
      body = { error: localized ?? known.message, code: known.code, ...details };
      if (status >= 500) request.log.warn({ err }, "request failed");
    } else {
      status = 500;
      body = { error: "Internal Server Error", code: "internal" };
      request.log.error({ err }, "unhandled error");
    }
    body.requestId = request.id;
    reply.header("cache-control", "no-store");
    return reply.status(status).send(body);
  });
}
