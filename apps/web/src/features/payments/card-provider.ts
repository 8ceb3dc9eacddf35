import { useConfig } from "../../shared/api/use-config.ts";

/** Which card entry the page shows: Stripe's (with its key) or the built-in sandbox's. */
export type CardProvider =
  | { kind: "loading" }
  | { kind: "unavailable" }
  | { kind: "sandbox" }
  | { kind: "stripe"; publishableKey: string };

/** Chosen by the server's billing mode (config/env): Stripe.js only with BILLING_MODE=stripe and its key. */
export function useCardProvider(): CardProvider {
  const config = useConfig();
  if (config.isPending) return { kind: "loading" };
  if (!config.data) return { kind: "unavailable" };
  if (config.data.billing_mode !== "stripe") return { kind: "sandbox" };
  const key = config.data.stripe_publishable_key;
  return key ? { kind: "stripe", publishableKey: key } : { kind: "unavailable" };
}
