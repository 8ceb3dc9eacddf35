import { BILLING_API, CARD_VERIFICATION_AMOUNT, type CardVerifyResponse } from "@tonus/contract";
import { type FormEvent, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { formatAmount, paymentErrorDetail } from "./billing-format.ts";
import { CardChallenge } from "./CardChallenge.tsx";
import { CardForm, type CardFormHandle } from "./CardForm.tsx";

function verify(body: { stripeToken?: string; stripe3dToken?: string }) {
  return apiRequest<CardVerifyResponse>(BILLING_API.cardVerify, { method: "POST", body });
}

type Challenge = { intent: string; clientSecret: string | null };

/** Card verification (spec §4, §9): $1 (50 RUB in Russian) charged and refunded once the bank confirms. */
export function CardVerification() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const card = useRef<CardFormHandle>(null);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
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
      if (result.status === "requires_action" && result.payment_intent)
        setChallenge({ intent: result.payment_intent, clientSecret: result.client_secret });
      else {
        setChallenge(null);
        setMessage({ ok: true, text: t("payments.verify.done", { charge }) });
      }
    } catch (error) {
      setChallenge(null);
      setMessage({ ok: false, text: t("payments.verify.failed", { detail: paymentErrorDetail(error) }) });
    } finally {
      setIsBusy(false);
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const token = await card.current?.tokenize();
      if (!token) throw new Error(t("payments.card.unavailable"));
      return verify({ stripeToken: token });
    });
  };

  return (
    <section className="card" aria-labelledby="verify-title">
      <h2 id="verify-title" className="card__title">
        {t("payments.verify.title")}
      </h2>
      <p>{t("payments.verify.explain", { charge })}</p>
      {message && <Alert status={message.ok ? "success" : "error"}>{message.text}</Alert>}
      {challenge ? (
        <CardChallenge
          paymentIntent={challenge.intent}
          clientSecret={challenge.clientSecret}
          isBusy={isBusy}
          onDone={() => void run(() => verify({ stripe3dToken: challenge.intent }))}
        />
      ) : (
        <form className="card-form" onSubmit={submit}>
          <CardForm ref={card} />
          <Button type="submit" isBusy={isBusy}>
            {t("payments.verify.submit")}
          </Button>
        </form>
      )}
    </section>
  );
}
