import type { Product, Purchase } from "@tonus/contract";
import { ApiError } from "../../shared/api/client.ts";

/** A minor-unit amount in its currency for the page's language (9.99 $, 499 ₽). */
export function formatAmount(amount: number, currency: string, language: string): string {
  return new Intl.NumberFormat(language === "ru" ? "ru-RU" : "en-US", {
    style: "currency",
    currency,
    minimumFractionDigits: amount % 100 === 0 ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(amount / 100);
}

export function formatDate(iso: string, language: string): string {
  return new Intl.DateTimeFormat(language === "ru" ? "ru-RU" : "en-US", { dateStyle: "long" }).format(
    new Date(iso),
  );
}

/** Spec §8: the response's `error`, else `detail`, then the HTTP status in parentheses. */
export function paymentErrorDetail(error: unknown): string {
  if (error instanceof ApiError) {
    const message = error.body?.error ?? error.body?.detail ?? "";
    return `${message} (${error.status})`.trim();
  }
  return error instanceof Error ? error.message : String(error);
}

/** The i18n key of a plan kind's period ("per month", "per year", …). */
export function periodKey(product: Pick<Product, "plan">): string {
  return `payments.period.${product.plan}`;
}

/** The subscription view's state for the page: the newest connected package, or none. */
export function subscriptionState(purchases: readonly Purchase[] | undefined): Purchase["state"] {
  return purchases?.[0]?.state ?? "none";
}
