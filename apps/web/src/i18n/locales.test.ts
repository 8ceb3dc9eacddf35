import { describe, expect, it } from "vitest";
import en from "./locales/en.json";
import ru from "./locales/ru.json";

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

function flattenKeys(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => flattenKeys(item, `${prefix}.${index}`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, child]) =>
      flattenKeys(child, prefix ? `${prefix}.${key}` : key),
    );
  }
  return [prefix];
}

function groupPlurals(keys: string[]): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const key of keys) {
    const match = PLURAL_SUFFIX.exec(key);
    const base = match ? key.slice(0, -match[0].length) : key;
    const forms = groups.get(base) ?? new Set<string>();
    forms.add(match?.[1] ?? "");
    groups.set(base, forms);
  }
  return groups;
}

describe("locale catalogues", () => {
  const enGroups = groupPlurals(flattenKeys(en));
  const ruGroups = groupPlurals(flattenKeys(ru));

  it("have the same keys in English and Russian", () => {
    expect([...ruGroups.keys()].sort()).toEqual([...enGroups.keys()].sort());
  });

  it("give every English plural one and other, and every Russian plural one, few, many and other", () => {
    for (const [base, forms] of enGroups) {
      if (forms.has("")) continue;
      expect([...forms].sort(), base).toEqual(["one", "other"]);
      expect([...(ruGroups.get(base) ?? [])].sort(), base).toEqual(["few", "many", "one", "other"]);
    }
  });

  it("contain no empty strings", () => {
    for (const catalogue of [en, ru]) {
      const empty = flattenKeys(catalogue).filter((key) => {
        const value = key
          .split(".")
          .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], catalogue);
        return typeof value !== "string" || value.trim() === "";
      });
      expect(empty).toEqual([]);
    }
  });

  it("keep the spec's wording for its fixed texts", () => {
    expect(en.billing.failed_payment).toBe("Failed payment, please double-check your payment info");
    expect(en.auth.signin.invalid_credentials).toBe("Incorrect login or password");
    expect(en.auth.email_invalid).toBe("Enter a valid email address");
    expect(en.auth.recovery.no_user).toBe("No user with this email (check the address)");
    expect(en.errors.not_found.title).toBe("Page not found (404)");
    expect(en.errors.server_down.text).toBe("Our server is temporarily down and is being fixed");
    expect(en.errors.maintenance.text).toBe("Maintenance in progress, please come back later");
    expect(en.profile.saved).toBe("Changes saved");
    expect(en.profile.personal.title).toBe("Edit personal data");
  });
});
