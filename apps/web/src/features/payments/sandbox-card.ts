import { BILLING_API } from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";

/**
 * The sandbox provider's client side, its stand-in for Stripe.js: the card number goes to the provider's
 * own tokenisation endpoint and only the token goes on to our pay call.
 */
export type CardInput = { number: string; expMonth: string; expYear: string; cvc: string };

export async function tokenizeCard(card: CardInput): Promise<string> {
  const year = card.expYear.trim().length === 2 ? `20${card.expYear.trim()}` : card.expYear.trim();
  const token = await apiRequest<{ id: string }>(BILLING_API.sandboxTokens, {
    method: "POST",
    body: { number: card.number, exp_month: card.expMonth.trim(), exp_year: year, cvc: card.cvc.trim() },
    isDataCall: false,
  });
  return token.id;
}

/** The customer's answer on the sandbox's 3-D Secure step. */
export async function answerChallenge(intentId: string, succeed: boolean): Promise<void> {
  await apiRequest(BILLING_API.sandboxAuthenticate.replace(":id", encodeURIComponent(intentId)), {
    method: "POST",
    body: { result: succeed ? "succeed" : "fail" },
    isDataCall: false,
  });
}
