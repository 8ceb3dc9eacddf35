import type { ApiErrorBody } from "@tonus/contract";
import type { FastifyError, FastifyInstance } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { AppError } from "./app-error.ts";
import { pickLocale, type ServerLocale, translate, translateOptional } from "./i18n.ts";
import { issueText } from "./validation-text.ts";

type Issue = { path: string; message: string };

/** The schema's complaints, each in the person's language (see `issueText`). */
function validationIssues(err: FastifyError, locale: ServerLocale): Issue[] {
  if (!hasZodFastifySchemaValidationErrors(err)) return [];
  return err.validation.map((v) => ({
    path: `${err.validationContext ?? "body"}${v.instancePath.replaceAll("/", ".")}`,
    message: issueText(locale, {
      code: String(v.keyword),
      message: v.message ?? "invalid",
      params: (v.params ?? {}) as Record<string, unknown>,
    }),
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
    const locale = pickLocale(request.headers["accept-language"]);
    const issues = validationIssues(err, locale);
    const known = err instanceof AppError ? err : issues.length ? undefined : fromFastifyError(err);
    if (issues.length) {
      status = 400;
      const list = issues.map((i) => `${i.path}: ${i.message}`).join("; ");
      body = {
        error: locale === "en" ? list : translate(locale, "validation.summary", { issues: list }),
        code: "validation_failed",
        issues,
      };
    } else if (known) {
      status = known.status;
      const { retryAfterS, ...details } = known.details ?? {};
      if (typeof retryAfterS === "number") reply.header("retry-after", String(retryAfterS));
      // Russian-preferring browsers get the catalogue's text for the code; English keeps the thrown message.
      // `payment_failed` has none: its message is the payment provider's own (spec §8 "Payment error …").
      const localized = locale === "ru" ? translateOptional("ru", `errors.${known.code}`) : undefined;
      body = { error: localized ?? known.message, code: known.code, ...details };
      if (status >= 500) request.log.warn({ err }, "request failed");
    } else {
      status = 500;
      body = {
        error: locale === "en" ? "Internal Server Error" : translate(locale, "errors.internal"),
        code: "internal",
      };
      request.log.error({ err }, "unhandled error");
    }
    body.requestId = request.id;
    reply.header("cache-control", "no-store");
    return reply.status(status).send(body);
  });
}
