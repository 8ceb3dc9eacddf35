import { randomUUID } from "node:crypto";
import type pino from "pino";

export type Logger = import("fastify").FastifyBaseLogger;

/** Paths pino must never print: credentials, tokens and cookies (RELIABILITY.md Z5). */
export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "req.headers['x-csrftoken']",
  "res.headers['set-cookie']",
  "password",
  "*.password",
  "*.new_password",
  "*.current_password",
  "*.token",
];

export function loggerOptions(level: string): pino.LoggerOptions {
  return {
    level,
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    serializers: {
      // The query string may hold one-time codes (direct login); log the path only.
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: req.url.split("?")[0],
        id: req.id,
      }),
    },
  };
}

export function genRequestId(): string {
  return randomUUID();
}
