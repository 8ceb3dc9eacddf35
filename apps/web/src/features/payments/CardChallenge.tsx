import { useEffect, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { useCardProvider } from "./card-provider.ts";
import { answerChallenge } from "./sandbox-card.ts";
import { loadStripeJs } from "./stripe-js.ts";

/**
 * The bank's confirmation (3-D Secure) of a payment that needs it. With Stripe, Stripe.js opens the bank's
 * window (`handleNextAction` with the intent's client secret); the sandbox shows its stand-in here. When the
 * customer is done, whatever they answered, `onDone` sends the intent back: the server asks the provider
 * what happened, so nothing here decides that the payment went through.
 */
export function CardChallenge({
  paymentIntent,
  clientSecret,
  isBusy,
  onDone,
}: {
  paymentIntent: string;
  clientSecret: string | null;
  isBusy: boolean;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const provider = useCardProvider();
  const [failure, setFailure] = useState<string | null>(null);
  // Stripe's window opens once per attempt; "Try again" starts another.
  const [attempt, setAttempt] = useState(0);
  const started = useRef(-1);
  const language = getCurrentLanguage();

  useEffect(() => {
    if (provider.kind !== "stripe" || started.current === attempt) return;
    started.current = attempt;
    if (!clientSecret) {
      setFailure(t("payments.challenge.not_completed"));
      return;
    }
    loadStripeJs(provider.publishableKey, language)
      .then((stripe) => stripe.handleNextAction({ clientSecret }))
      .then(
        () => onDone(),
        () => setFailure(t("payments.challenge.not_completed")),
      );
  }, [provider, clientSecret, language, onDone, t, attempt]);

  async function answer(succeed: boolean) {
    setFailure(null);
    try {
      await answerChallenge(paymentIntent, succeed);
    } catch {
      setFailure(t("payments.challenge.not_completed"));
      return;
    }
    onDone();
  }

  return (
    <section className="card challenge" aria-labelledby="challenge-title" aria-live="polite">
      <h2 id="challenge-title" className="card__title">
        {t("payments.challenge.title")}
      </h2>
      <p>{t("payments.challenge.text")}</p>
      {failure && <Alert status="error">{failure}</Alert>}
      {provider.kind === "stripe" ? (
        failure ? (
          <Button
            variant="secondary"
            onClick={() => {
              setFailure(null);
              setAttempt((n) => n + 1);
            }}
          >
            {t("payments.challenge.retry")}
          </Button>
        ) : (
          <LoadingState />
        )
      ) : (
        <div className="row">
          <Button isBusy={isBusy} onClick={() => void answer(true)}>
            {t("payments.challenge.complete")}
          </Button>
          <Button variant="secondary" disabled={isBusy} onClick={() => void answer(false)}>
            {t("payments.challenge.fail")}
          </Button>
        </div>
      )}
    </section>
  );
}
