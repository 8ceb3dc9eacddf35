import fc from "fast-check";
import { expect } from "vitest";
import { z } from "zod";

/**
 * Request bodies for fuzz tests (RELIABILITY Z1), built from a route's zod schema through
 * `z.toJSONSchema`: values the schema accepts (so the route's real work runs), the same with one field
 * broken or a key smuggled in, and generic hostile JSON.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
};

/** Plausible values for fields a JSON schema cannot describe (a refinement checks them), by key. */
export type FieldHints = Record<string, fc.Arbitrary<unknown>>;

const recentInstant = fc
  .integer({ min: Date.UTC(2015, 0, 1), max: Date.now() })
  .map((ms) => new Date(ms).toISOString());

function arbitraryOf(schema: JsonSchema, hints: FieldHints, key?: string): fc.Arbitrary<unknown> {
  if (key && hints[key]) return hints[key] as fc.Arbitrary<unknown>;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return fc.oneof(...options.map((s) => arbitraryOf(s, hints)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min =
        schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
      const max =
        schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : undefined);
      // A bound on one side only: the range reaches a million past it.
      const lo = Math.ceil(min ?? Math.min(-1_000_000, (max ?? 0) - 1_000_000));
      return fc.integer({ min: lo, max: Math.floor(max ?? Math.max(1_000_000, lo + 1_000_000)) });
    }
    case "number":
      return fc.double({
        min: schema.minimum ?? -1e6,
        max: schema.maximum ?? 1e6,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case "string": {
      if (schema.format === "uuid") return fc.uuid({ version: 4 });
      if (schema.format === "date-time") return recentInstant;
      if (schema.format === "date") return recentInstant.map((s) => s.slice(0, 10));
      if (schema.pattern) {
        const pattern = new RegExp(schema.pattern);
        const max = schema.maxLength ?? 64;
        return fc
          .stringMatching(pattern)
          .filter((s) => s.length <= max && s.length >= (schema.minLength ?? 0));
      }
      return fc.string({
        minLength: schema.minLength ?? 0,
        maxLength: Math.min(schema.maxLength ?? 40, 200),
      });
    }
    case "array":
      return fc.array(schema.items ? arbitraryOf(schema.items, hints) : fc.jsonValue(), {
        minLength: schema.minItems ?? 0,
        // Short arrays, unless the schema asks for more (an RR series needs its hundred intervals).
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 10, 12)),
      });
    case "object": {
      const props = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, sub] of Object.entries(props)) model[name] = arbitraryOf(sub, hints, name);
      return fc.record(model, {
        requiredKeys: Object.keys(props).filter((k) => required.has(k)),
      });
    }
    default:
      return fc.jsonValue();
  }
}

/** Bodies the schema (mostly) accepts: refinements such as "systolic above diastolic" may still refuse some. */
export function validBodies(
  schema: z.ZodType,
  hints: FieldHints = {},
): fc.Arbitrary<Record<string, unknown>> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;
  return arbitraryOf(json, hints) as fc.Arbitrary<Record<string, unknown>>;
}

/** Generic hostile field values: any JSON, boundary numbers, NUL, a lone surrogate, a long string. */
export const hostileValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(
    null,
    true,
    -0,
    2 ** 53,
    -(2 ** 53),
    1e308,
    "",
    "\u0000",
    "\ud800",
    "NaN",
    "Infinity",
    [],
    {},
    "x".repeat(10_000),
  ),
);

/**
 * Wire bodies (JSON text) for one route: valid ones, valid ones with one field replaced by a hostile
 * value, one key dropped or an extra key added, and generic hostile JSON (deep nesting, huge strings,
 * `__proto__`).
 */
export function fuzzBodies(
  schema: z.ZodType,
  hints: FieldHints = {},
  /** Makes a generated body consistent where fields depend on each other (a unit that fits the metric). */
  adjust?: (body: Record<string, unknown>, pick: number) => Record<string, unknown>,
): fc.Arbitrary<string> {
  const generated = validBodies(schema, hints);
  const valid = adjust ? fc.tuple(generated, fc.nat()).map(([body, pick]) => adjust(body, pick)) : generated;
  const broken = fc
    .tuple(valid, fc.string({ maxLength: 12 }), hostileValue, fc.nat())
    .map(([body, extra, value, pick]) => {
      const keys = Object.keys(body);
      const copy: Record<string, unknown> = { ...body };
      const key = keys.length ? (keys[pick % keys.length] as string) : extra;
      switch (pick % 3) {
        case 0:
          copy[key] = value;
          break;
        case 1:
          delete copy[key];
          break;
        default:
          copy[extra || "__proto__"] = value;
      }
      return JSON.stringify(copy);
    });
  const generic = fc.oneof(
    hostileValue.map((v) => JSON.stringify(v) ?? "null"),
    fc.constant(`${"[".repeat(10_000)}${"]".repeat(10_000)}`),
    fc.constant('{"__proto__":{"isCustomer":true},"constructor":{"prototype":{}}}'),
    fc.string({ maxLength: 100 }),
  );
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((b) => JSON.stringify(b)) },
    { weight: 4, arbitrary: broken },
    { weight: 2, arbitrary: generic },
  );
}

/**
 * RELIABILITY Z1 asks 10,000 cases per route in the heavy tier (TONUS_HEAVY=1); the default tier runs
 * fewer with the same generators.
 */
export const FUZZ_RUNS = process.env.TONUS_HEAVY ? 10_000 : 200;
/** A per-test timeout fitting FUZZ_RUNS (10,000 injected requests take minutes on a loaded machine). */
export const FUZZ_TIMEOUT_MS = process.env.TONUS_HEAVY ? 1_800_000 : 120_000;

/** One request body: what goes on the wire and the content type it claims. */
export type FuzzBody = { payload: string | Buffer; contentType: string };

const json = (payload: string): FuzzBody => ({ payload, contentType: "application/json" });

/**
 * Whole requests for one route: `fuzzBodies` (schema-derived JSON, broken fields, generic hostile JSON)
 * plus what happens below JSON: 1 MB strings, depth-10,000 objects, truncated JSON, invalid UTF-8 bytes,
 * and schema-shaped bodies under the wrong content type.
 */
export function fuzzRequests(schema: z.ZodType, hints: FieldHints = {}): fc.Arbitrary<FuzzBody> {
  const shaped = validBodies(schema, hints);
  return fc.oneof(
    { weight: 8, arbitrary: fuzzBodies(schema, hints).map(json) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          JSON.stringify("x".repeat(1_000_000)),
          `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`,
          '{"a":',
          "{",
          "",
          "null",
        )
        .map(json),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
          Buffer.from([0xc3, 0x28]),
        )
        .map((payload) => ({ payload, contentType: "application/json" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          shaped,
          fc.constantFrom(
            "text/plain",
            "application/xml",
            "multipart/form-data",
            "application/x-www-form-urlencoded",
          ),
        )
        .map(([body, contentType]) => ({ payload: JSON.stringify(body), contentType })),
    },
  );
}

/** Z1's verdict on one answer: never ≥ 500, and every 4xx is JSON with a message and a stable code. */
export function expectNoServerError(res: { statusCode: number; body: string }, what: string): void {
  expect(res.statusCode, `${what} → ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode < 400) return;
  const body = JSON.parse(res.body) as { error?: unknown; detail?: unknown; code?: unknown };
  expect(typeof body.error === "string" || typeof body.detail === "string", `${what}: ${res.body}`).toBe(
    true,
  );
  expect(typeof body.code, `${what}: ${res.body}`).toBe("string");
}

/** A short description of a body for failure messages. */
export function describeBody(body: FuzzBody): string {
  const text = typeof body.payload === "string" ? body.payload : body.payload.toString("hex");
  return `${body.contentType} ${text.slice(0, 200)}`;
}
