import { schemaMessageKey } from "@tonus/contract";
import { type ServerLocale, translate, translateOptional, translatePlural } from "./i18n.ts";

/** One schema issue as fastify-type-provider-zod hands it over: zod's code, message and the rest. */
export type SchemaIssue = { code: string; message: string; params: Record<string, unknown> };

const TYPES = new Set(["number", "int", "string", "array", "object", "boolean", "date"]);

function listOf(values: unknown): string {
  return Array.isArray(values)
    ? values.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")
    : "";
}

function numberText(locale: ServerLocale, value: unknown): string {
  const n = typeof value === "bigint" ? Number(value) : Number(value);
  return Number.isFinite(n) ? new Intl.NumberFormat(locale).format(n) : String(value);
}

function bound(locale: ServerLocale, side: "min" | "max", params: Record<string, unknown>): string {
  const value = side === "min" ? params.minimum : params.maximum;
  const origin = String(params.origin ?? "");
  if (origin === "array" || origin === "set")
    return translatePlural(locale, `validation.${side}_items`, Number(value));
  if (origin === "string") return translatePlural(locale, `validation.${side}_chars`, Number(value));
  const kind = params.inclusive === false ? "exclusive" : "inclusive";
  return translate(locale, `validation.${side}_${kind}`, { value: numberText(locale, value) });
}

/**
 * A schema issue in the person's language. English keeps zod's own wording (and the contract's); other
 * languages get the catalogue's `validation.*` text: the contract's own messages by their key
 * (`SCHEMA_MESSAGES`), zod's checks worded from the issue's code and limits, with plural forms.
 */
export function issueText(locale: ServerLocale, issue: SchemaIssue): string {
  if (locale === "en") return issue.message;
  const own = schemaMessageKey(issue.message);
  if (own) return translate(locale, `validation.custom.${own}`);
  const p = issue.params;
  switch (issue.code) {
    case "too_small":
      return bound(locale, "min", p);
    case "too_big":
      return bound(locale, "max", p);
    case "invalid_type": {
      // zod leaves the input out of the issue; its message still says what was received.
      if (/received undefined$/.test(issue.message)) return translate(locale, "validation.required");
      const expected = String(p.expected ?? "");
      const type = translate(locale, `validation.types.${TYPES.has(expected) ? expected : "other"}`);
      return translate(locale, "validation.invalid_type", { expected: type });
    }
    case "invalid_format":
      return (
        translateOptional(locale, `validation.format.${String(p.format ?? "")}`) ??
        translate(locale, "validation.format.other")
      );
    case "invalid_value":
      return translate(locale, "validation.invalid_value", { values: listOf(p.values) });
    case "unrecognized_keys":
      return translate(locale, "validation.unrecognized_keys", { keys: listOf(p.keys) });
    case "not_multiple_of":
      return translate(locale, "validation.not_multiple_of", { divisor: numberText(locale, p.divisor) });
    default:
      return translate(locale, "validation.invalid");
  }
}
