import { type Ref, useEffect, useImperativeHandle, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { type CardProvider, useCardProvider } from "./card-provider.ts";
import { type CardInput, tokenizeCard } from "./sandbox-card.ts";
import { loadStripeJs, type StripeCardElement, type StripeJs } from "./stripe-js.ts";

/** What a page does with the entered card: turn it into the provider's token (never the number itself). */
export type CardFormHandle = { tokenize(): Promise<string> };

/**
 * The card entry of every form that takes a card (payment, card verification): Stripe's card field
 * through Stripe.js when the installation uses Stripe, otherwise the sandbox provider's fields. Either way
 * the card goes to the provider's tokenisation and only a token reaches Tonus's API.
 */
export function CardForm({
  ref,
  showTestCards = false,
}: {
  ref: Ref<CardFormHandle>;
  showTestCards?: boolean;
}) {
  const { t } = useTranslation();
  const provider = useCardProvider();
  if (provider.kind === "loading") return <LoadingState />;
  if (provider.kind === "unavailable") return <Alert status="error">{t("payments.card.unavailable")}</Alert>;
  return (
    <fieldset className="card-form">
      <legend>{t("payments.card.legend")}</legend>
      {provider.kind === "stripe" ? (
        <StripeCardField ref={ref} provider={provider} />
      ) : (
        <SandboxCardFields ref={ref} showTestCards={showTestCards} />
      )}
    </fieldset>
  );
}

function SandboxCardFields({ ref, showTestCards }: { ref: Ref<CardFormHandle>; showTestCards: boolean }) {
  const { t } = useTranslation();
  const [card, setCard] = useState<CardInput>({ number: "", expMonth: "", expYear: "", cvc: "" });
  const current = useRef(card);
  current.current = card;
  useImperativeHandle(ref, () => ({ tokenize: () => tokenizeCard(current.current) }), []);
  return (
    <>
      <TextField
        label={t("payments.card.number")}
        inputMode="numeric"
        autoComplete="cc-number"
        required
        maxLength={23}
        value={card.number}
        onChange={(e) => setCard({ ...card, number: e.target.value })}
        hint={showTestCards ? t("payments.card.sandbox_hint") : undefined}
      />
      <div className="card-form__row">
        <TextField
          label={t("payments.card.month")}
          inputMode="numeric"
          autoComplete="cc-exp-month"
          required
          maxLength={2}
          value={card.expMonth}
          onChange={(e) => setCard({ ...card, expMonth: e.target.value })}
        />
        <TextField
          label={t("payments.card.year")}
          inputMode="numeric"
          autoComplete="cc-exp-year"
          required
          maxLength={4}
          value={card.expYear}
          onChange={(e) => setCard({ ...card, expYear: e.target.value })}
        />
        <TextField
          label={t("payments.card.cvc")}
          inputMode="numeric"
          autoComplete="cc-csc"
          required
          maxLength={4}
          value={card.cvc}
          onChange={(e) => setCard({ ...card, cvc: e.target.value })}
        />
      </div>
    </>
  );
}

/** Stripe's card field, mounted into a container of ours; its frame holds the number, expiry and CVC. */
function StripeCardField({
  ref,
  provider,
}: {
  ref: Ref<CardFormHandle>;
  provider: Extract<CardProvider, { kind: "stripe" }>;
}) {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const container = useRef<HTMLDivElement>(null);
  const mounted = useRef<{ stripe: StripeJs; card: StripeCardElement } | null>(null);
  const [state, setState] = useState<"loading" | "ready" | "failed">("loading");
  const [cardError, setCardError] = useState<string | null>(null);

  useEffect(() => {
    let isCurrent = true;
    let card: StripeCardElement | null = null;
    loadStripeJs(provider.publishableKey, language).then(
      (stripe) => {
        if (!isCurrent || !container.current) return;
        card = stripe.elements({ locale: language }).create("card", { hidePostalCode: true });
        card.on("change", (event) => setCardError(event.error?.message ?? null));
        card.mount(container.current);
        mounted.current = { stripe, card };
        setState("ready");
      },
      () => {
        if (isCurrent) setState("failed");
      },
    );
    return () => {
      isCurrent = false;
      card?.destroy();
      mounted.current = null;
    };
  }, [provider.publishableKey, language]);

  useImperativeHandle(
    ref,
    () => ({
      async tokenize() {
        const current = mounted.current;
        if (!current) throw new Error(t("payments.card.unavailable"));
        const result = await current.stripe.createPaymentMethod({ type: "card", card: current.card });
        if (!result.paymentMethod) throw new Error(result.error?.message ?? t("payments.card.unavailable"));
        return result.paymentMethod.id;
      },
    }),
    [t],
  );

  if (state === "failed") return <Alert status="error">{t("payments.card.unavailable")}</Alert>;
  return (
    <div className="field">
      {/* Stripe's frame labels its own inputs; this line tells what goes into it. */}
      <p className="field__label">{t("payments.card.stripe_label")}</p>
      {state === "loading" && <LoadingState />}
      <div ref={container} className="field__input stripe-card" data-testid="stripe-card" />
      {cardError && (
        <div className="field__error" role="alert">
          {cardError}
        </div>
      )}
    </div>
  );
}
