import { API, ERROR_CODES, type ErrorCode, SCHEMA_MESSAGES } from "@tonus/contract";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { App } from "../app.ts";
import en from "../locales/en.json" with { type: "json" };
import ru from "../locales/ru.json" with { type: "json" };
import { getTestDatabase } from "../test/databases.ts";
import { buildTestApp } from "../test/harness.ts";
import { createTestUser } from "../test/users.ts";
import { AppError } from "./app-error.ts";
import { registerErrorHandler } from "./error-handler.ts";
import { issueText } from "./validation-text.ts";

const RU = { "accept-language": "ru-RU,ru;q=0.9,en;q=0.8" };
const CYRILLIC = /[А-Яа-яЁё]/;

describe("error texts", () => {
  it("has an English and a Russian text for every error code but the payment provider's", () => {
    const codes = Object.keys(ERROR_CODES) as ErrorCode[];
    const missing = (catalogue: { errors: Record<string, string> }) =>
      codes.filter((code) => !(code in catalogue.errors));
    // payment_failed answers with the provider's own message (spec §8 "Payment error … (402)").
    expect(missing(en)).toEqual(["payment_failed"]);
    expect(missing(ru)).toEqual(["payment_failed"]);
    for (const code of codes) {
      if (code === "payment_failed") continue;
      expect(ru.errors[code as keyof typeof ru.errors], code).toMatch(CYRILLIC);
    }
  });

  it("has a Russian text for every message of the contract's own checks", () => {
    for (const key of Object.keys(SCHEMA_MESSAGES)) {
      expect(ru.validation.custom[key as keyof typeof ru.validation.custom], key).toMatch(CYRILLIC);
      expect(en.validation.custom[key as keyof typeof en.validation.custom]).toBe(
        SCHEMA_MESSAGES[key as keyof typeof SCHEMA_MESSAGES],
      );
    }
  });

  it("words zod's checks in Russian with the right plural forms", () => {
    const items = (minimum: number) =>
      issueText("ru", { code: "too_small", message: "Too small", params: { origin: "array", minimum } });
    expect(items(1)).toBe("не меньше 1 значения");
    expect(items(3)).toBe("не меньше 3 значений");
    expect(items(20)).toBe("не меньше 20 значений");
    expect(items(21)).toBe("не меньше 21 значения");
    const chars = issueText("ru", {
      code: "too_big",
      message: "Too big",
      params: { origin: "string", maximum: 40 },
    });
    expect(chars).toBe("не длиннее 40 символов");
    const number = (inclusive: boolean) =>
      issueText("ru", {
        code: "too_small",
        message: "",
        params: { origin: "number", minimum: 50, inclusive },
      });
    expect(number(true)).toBe("не меньше 50");
    expect(number(false)).toBe("больше 50");
    expect(
      issueText("ru", {
        code: "invalid_type",
        message: "Invalid input: expected array, received string",
        params: { expected: "array" },
      }),
    ).toBe("ожидается список");
    expect(
      issueText("ru", {
        code: "invalid_type",
        message: "Invalid input: expected string, received undefined",
        params: { expected: "string" },
      }),
    ).toBe("обязательное поле");
    expect(
      issueText("ru", { code: "invalid_format", message: "Invalid UUID", params: { format: "uuid" } }),
    ).toBe("нужен идентификатор UUID");
    expect(issueText("ru", { code: "something_new", message: "Odd", params: {} })).toBe(
      "недопустимое значение",
    );
    // English keeps zod's wording.
    expect(
      issueText("en", {
        code: "too_small",
        message: "Too small: expected array to have >=20 items",
        params: {},
      }),
    ).toBe("Too small: expected array to have >=20 items");
  });
});

describe("the error handler in Russian", () => {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  app.get("/throw/:code", (request) => {
    const { code } = request.params as { code: ErrorCode };
    throw new AppError(code, "English message");
  });
  app.get("/crash", () => {
    throw new Error("boom");
  });
  app.get("/fastify/:status", (request) => {
    const error = new Error("from fastify") as Error & { statusCode: number };
    error.statusCode = Number((request.params as { status: string }).status);
    throw error;
  });
  app
    .withTypeProvider<ZodTypeProvider>()
    .post("/body", { schema: { body: z.object({ n: z.number().int() }) } }, () => ({ ok: true }));
  afterAll(() => app.close());

  it("answers payload_too_large, unavailable and forbidden (and every other code) with the catalogue's text", async () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const res = await app.inject({ method: "GET", url: `/throw/${code}`, headers: RU });
      expect(res.statusCode).toBe(ERROR_CODES[code]);
      const body = res.json() as { error: string; code: string };
      expect(body.code).toBe(code);
      if (code === "payment_failed") expect(body.error).toBe("English message");
      else expect(body.error, code).toBe(ru.errors[code as keyof typeof ru.errors]);
    }
    for (const [status, code] of [
      [413, "payload_too_large"],
      [503, "unavailable"],
    ] as const) {
      const res = await app.inject({ method: "GET", url: `/fastify/${status}`, headers: RU });
      expect(res.json()).toMatchObject({ code, error: ru.errors[code] });
    }
    const crash = await app.inject({ method: "GET", url: "/crash", headers: RU });
    expect(crash.json()).toMatchObject({ code: "internal", error: "Внутренняя ошибка сервера" });
    const english = await app.inject({ method: "GET", url: "/throw/forbidden" });
    expect(english.json()).toMatchObject({ error: "English message" });
  });

  it("answers schema failures with the Russian summary and issues", async () => {
    const res = await app.inject({ method: "POST", url: "/body", headers: RU, payload: { n: "7" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: "validation_failed",
      error: "Проверьте данные и попробуйте ещё раз: body.n: ожидается число",
      issues: [{ path: "body.n", message: "ожидается число" }],
    });
  });
});

describe("measurement uploads refused in Russian", () => {
  let app: App;
  beforeAll(async () => {
    app = await buildTestApp(await getTestDatabase("pglite"));
  });
  afterAll(() => app.close());

  it("names what is wrong with a bad RR series in Russian, and in English for an English browser", async () => {
    const client = (await createTestUser(app.ctx.database)).client(app);
    const upload = (rr_ms: unknown, extra: Record<string, unknown> = {}) => ({
      client_id: crypto.randomUUID(),
      rr_ms,
      source: "strap",
      started_at: "2026-11-20T07:30:00Z",
      time_zone: "Europe/Moscow",
      ...extra,
    });
    const issuesOf = async (body: unknown, headers: Record<string, string> = RU) => {
      const res = await client.post(API.measurements, body, headers);
      expect(res.statusCode, res.body).toBe(400);
      return res.json() as { error: string; issues: { path: string; message: string }[] };
    };
    const short = await issuesOf(upload([800, 810, 790]));
    expect(short.error).toBe("Проверьте данные и попробуйте ещё раз: body.rr_ms: не меньше 20 значений");
    const long = await issuesOf(upload(Array.from({ length: 5001 }, () => 800)));
    expect(long.issues).toEqual([{ path: "body.rr_ms", message: "не больше 5\u00a0000 значений" }]);
    const negative = await issuesOf(upload([...Array.from({ length: 30 }, () => 800), -800]));
    expect(negative.issues).toEqual([{ path: "body.rr_ms.30", message: "не меньше 50" }]);
    const hour = await issuesOf(upload(Array.from({ length: 1000 }, () => 4000)));
    expect(hour.issues).toEqual([{ path: "body.rr_ms", message: ru.validation.custom.rr_too_long }]);
    const text = await issuesOf(upload("800,810"));
    expect(text.issues).toContainEqual({ path: "body.rr_ms", message: "ожидается список" });
    const missing = await issuesOf({
      ...upload(Array.from({ length: 30 }, () => 800)),
      started_at: undefined,
    });
    expect(missing.issues).toEqual([{ path: "body.started_at", message: "обязательное поле" }]);
    const source = await issuesOf(
      upload(
        Array.from({ length: 30 }, () => 800),
        { source: "telepathy" },
      ),
    );
    expect(source.issues).toEqual([
      { path: "body.source", message: "допустимо: camera, strap, watch, file, app" },
    ]);
    const tag = await issuesOf(
      upload(
        Array.from({ length: 30 }, () => 800),
        { tags: ["a,b"] },
      ),
    );
    expect(tag.issues).toEqual([{ path: "body.tags.0", message: "Без запятых и управляющих символов" }]);
    const english = await issuesOf(upload([800, 810, 790]), {});
    expect(english.error).toBe("body.rr_ms: Too small: expected array to have >=20 items");
  });
});
