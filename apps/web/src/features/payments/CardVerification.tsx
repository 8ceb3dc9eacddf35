import { BILLING_API, CARD_VERIFICATION_AMOUNT, type CardVerifyResponse } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { formatAmount, paymentErrorDetail } from "./billing-format.ts";
import { answerChallenge, tokenizeCard } from "./sandbox-card.ts";

function verify(body: { stripeToken?: string; stripe3dToken?: string }) {
  return apiRequest<CardVerifyResponse>(BILLING_API.cardVerify, { method: "POST", body });
}

/** Card verification (spec §4, §9): $1 (50 RUB in Russian) charged and refunded once the bank confirms. */
export function CardVerification() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const [card, setCard] = useState({ number: "", expMonth: "", expYear: "", cvc: "" });
  const [intent, setIntent] = useState<string | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const charge =
    language === "ru"
      ? formatAmount(CARD_VERIFICATION_AMOUNT.RUB, "RUB", language)
      : formatAmount(CARD_VERIFICATION_AMOUNT.USD, "USD", language);

  async function run(work: () => Promise<CardVerifyResponse>) {
    setIsBusy(true);
    setMessage(null);
    try {
      const result = await work();
      if (result.status === "requires_action" && result.payment_intent) setIntent(result.payment_intent);
      else {
        setIntent(null);
        setMessage({ ok: true, text: t("payments.verify.done", { charge }) });
      }
    } catch (error) {
      setIntent(null);
      setMessage({ ok: false, text: t("payments.verify.failed", { detail: paymentErrorDetail(error) }) });
    } finally {
      setIsBusy(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => verify({ stripeToken: await tokenizeCard(card) }));
  };
  const answer = (pi: string, ok: boolean) =>
    void run(async () => {
      await answerChallenge(pi, ok);
      return verify({ stripe3dToken: pi });
    });

  return (
    <section className="card" aria-labelledby="verify-title">
      <h2 id="verify-title" className="card__title">
        {t("payments.verify.title")}
      </h2>
      <p>{t("payments.verify.explain", { charge })}</p>
      {message && <Alert status={message.ok ? "success" : "error"}>{message.text}</Alert>}
      {intent ? (
        <div className="challenge stack">
          <p>{t("payments.challenge.text")}</p>
          <div className="row">
            <Button isBusy={isBusy} onClick={() => answer(intent, true)}>
              {t("payments.challenge.complete")}
            </Button>
            <Button variant="secondary" disabled={isBusy} onClick={() => answer(intent, false)}>
              {t("payments.challenge.fail")}
            </Button>
          </div>
        </div>
      ) : (
        <form className="card-form" onSubmit={submit}>
          <TextField
            label={t("payments.card.number")}
            inputMode="numeric"
            autoComplete="cc-number"
            required
            maxLength={23}
            value={card.number}
            onChange={(e) => setCard({ ...card, number: e.target.value })}
          />
          <div className="card-form__row">
            <TextField
              label={t("payments.card.month")}
              inputMode="numeric"
              required
              maxLength={2}
              value={card.expMonth}
              onChange={(e) => setCard({ ...card, expMonth: e.target.value })}
            />
            <TextField
              label={t("payments.card.year")}
              inputMode="numeric"
              required
              maxLength={4}
              value={card.expYear}
              onChange={(e) => setCard({ ...card, expYear: e.target.value })}
            />
            <TextField
              label={t("payments.card.cvc")}
              inputMode="numeric"
              required
              maxLength={4}
              value={card.cvc}
              onChange={(e) => setCard({ ...card, cvc: e.target.value })}
            />
          </div>
          <Button type="submit" isBusy={isBusy}>
            {t("payments.verify.submit")}
          </Button>
        </form>
      )}
    </section>
  );
}
