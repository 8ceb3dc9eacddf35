import { useQueryClient } from "@tanstack/react-query";
import { GIFT_PRODUCT_SLUG, organizeProducts, type PayResponse, type Product } from "@tonus/contract";
import { type FormEvent, useRef, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useNavigate, useSearchParams } from "react-router";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { LoadingState } from "../../shared/ui/Spinner.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { trackEvent } from "../analytics/track.ts";
import { useAuth } from "../auth/use-auth.ts";
import {
  checkCoupon,
  PAYMENT_FOLLOW_UP_MS,
  pay,
  refreshAfterPayment,
  useProducts,
  usePurchases,
} from "./billing-api.ts";
import { formatAmount, paymentErrorDetail, periodKey } from "./billing-format.ts";
import { CardChallenge } from "./CardChallenge.tsx";
import { CardForm, type CardFormHandle } from "./CardForm.tsx";
import { PlanList } from "./PlanList.tsx";
import { SubscriptionView } from "./SubscriptionView.tsx";
import "./payments.css";

const UPGRADE_PATH = "/payment";

/** /payment: Upgrade. Without a chosen plan it lists the plans; with `?plan=ID` it takes the payment. */
export default function PaymentPage() {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const auth = useAuth();
  const [params] = useSearchParams();
  const products = useProducts(language);
  const isSignedIn = auth.userType === "full";
  const purchases = usePurchases(isSignedIn);
  if (products.isPending) return <LoadingState />;
  const all = products.data ?? [];
  const { plans } = organizeProducts(all);
  const gift = all.find((p) => p.slug === GIFT_PRODUCT_SLUG && p.active);
  const chosen = all.find((p) => String(p.id) === params.get("plan") && p.active);
  const current = purchases.data?.find((p) => p.state !== "none");

  if (chosen) {
    // Keyed by the product: a coupon checked (or a form filled) for one plan never carries over to another.
    return (
      <Checkout key={chosen.id} product={chosen} isSignedIn={isSignedIn} hasSubscription={Boolean(current)} />
    );
  }
  return (
    <>
      {current && (
        <>
          <Alert status="success">{t("payments.already_subscribed")}</Alert>
          <SubscriptionView purchase={current} language={language} />
        </>
      )}
      <p className="muted">{t("payments.upgrade_intro")}</p>
      <PlanList plans={plans} language={language} />
      {gift && (
        <section className="card">
          <h2 className="card__title">{t("payments.gift.title")}</h2>
          <p>{t("payments.gift.text")}</p>
          <Link className="btn btn--secondary" to={`${UPGRADE_PATH}?plan=${gift.id}`}>
            {t("payments.gift.buy", { price: formatAmount(gift.amount, gift.currency, language) })}
          </Link>
        </section>
      )}
    </>
  );
}

type Stage =
  | { kind: "form" }
  | { kind: "challenge"; intent: string; clientSecret: string | null }
  | { kind: "done"; gift: boolean };

function Checkout({
  product,
  isSignedIn,
  hasSubscription,
}: {
  product: Product;
  isSignedIn: boolean;
  hasSubscription: boolean;
}) {
  const { t } = useTranslation();
  const language = getCurrentLanguage();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const card = useRef<CardFormHandle>(null);
  const [coupon, setCoupon] = useState("");
  const [checked, setChecked] = useState<{ productId: number; code: string; amount: number } | null>(null);
  const [couponError, setCouponError] = useState<string | null>(null);
  const [stage, setStage] = useState<Stage>({ kind: "form" });
  const [error, setError] = useState<string | null>(null);
  const [isBusy, setIsBusy] = useState(false);
  const isGift = product.slug === GIFT_PRODUCT_SLUG;
  // Spec §5: the coupon is sent only after a successful check for this product and this code.
  const validCoupon =
    checked && checked.productId === product.id && checked.code === coupon.trim().toUpperCase()
      ? checked
      : null;
  const amount = validCoupon ? validCoupon.amount : product.amount;

  const back = (
    <Button variant="ghost" onClick={() => navigate(UPGRADE_PATH)}>
      {t("payments.back")}
    </Button>
  );
  if (!isSignedIn) {
    return (
      <div className="stack">
        {back}
        <p>{t("payments.sign_in_to_pay")}</p>
        <Link
          className="btn btn--primary"
          to={`/user/login?destination=${encodeURIComponent(`${UPGRADE_PATH}?plan=${product.id}`)}`}
        >
          {t("nav.signin")}
        </Link>
      </div>
    );
  }

  function finished(result: PayResponse) {
    setStage({ kind: "done", gift: result.gift });
    if (!result.gift && result.status === "succeeded")
      trackEvent("upgrade_completed", { plan: product.slug });
    if (result.gift) showAlert(t("payments.gift.thanks"));
    // Spec §4: 10 s later the page reloads products, profile, history, packages and its own data.
    window.setTimeout(() => refreshAfterPayment(queryClient), PAYMENT_FOLLOW_UP_MS);
  }

  function failed(err: unknown) {
    setError(t("payments.error", { detail: paymentErrorDetail(err) }));
  }

  function settle(result: PayResponse) {
    if (result.status === "requires_action" && result.payment_intent)
      setStage({ kind: "challenge", intent: result.payment_intent, clientSecret: result.client_secret });
    else finished(result);
  }

  async function applyCoupon() {
    setCouponError(null);
    try {
      const result = await checkCoupon(product.id, coupon.trim());
      setChecked({ productId: product.id, code: result.coupon, amount: result.amount });
    } catch (err) {
      setChecked(null);
      setCouponError(t("payments.coupon_invalid", { detail: paymentErrorDetail(err) }));
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setIsBusy(true);
    try {
      const stripeToken = amount > 0 ? await card.current?.tokenize() : undefined;
      settle(
        await pay(
          {
            productId: product.id,
            ...(validCoupon ? { coupon: validCoupon.code } : {}),
            ...(stripeToken ? { stripeToken } : {}),
          },
          crypto.randomUUID(),
        ),
      );
    } catch (err) {
      failed(err);
    } finally {
      setIsBusy(false);
    }
  }

  async function confirmed(intent: string) {
    setIsBusy(true);
    try {
      settle(await pay({ productId: product.id, stripe3dToken: intent }));
    } catch (err) {
      setStage({ kind: "form" });
      failed(err);
    } finally {
      setIsBusy(false);
    }
  }

  return (
    <div className="stack">
      {back}
      <section className="card">
        <h2 className="card__title">{product.title}</h2>
        <p className="plan-card__price">
          {formatAmount(amount, product.currency, language)}{" "}
          {!isGift && (
            <span className="muted">{t(periodKey(product), { count: product.interval_count })}</span>
          )}
        </p>
      </section>
      {hasSubscription && !isGift && <Alert status="error">{t("payments.already_subscribed")}</Alert>}
      {error && (
        <Alert status="error">
          <strong>{t("payments.error_title")}</strong> {error}
        </Alert>
      )}
      {stage.kind === "done" && (
        <Alert status="success">{stage.gift ? t("payments.gift.thanks") : t("payments.success")}</Alert>
      )}
      {stage.kind === "challenge" && (
        <CardChallenge
          paymentIntent={stage.intent}
          clientSecret={stage.clientSecret}
          isBusy={isBusy}
          onDone={() => void confirmed(stage.intent)}
        />
      )}
      {stage.kind === "form" && (
        <form className="card-form" onSubmit={(e) => void submit(e)}>
          {!isGift && (
            <div className="row">
              <TextField
                label={t("payments.coupon")}
                value={coupon}
                autoComplete="off"
                maxLength={64}
                onChange={(e) => setCoupon(e.target.value)}
                error={couponError}
                hint={validCoupon ? t("payments.coupon_applied") : undefined}
              />
              <Button variant="secondary" disabled={coupon.trim() === ""} onClick={() => void applyCoupon()}>
                {t("payments.coupon_apply")}
              </Button>
            </div>
          )}
          {amount > 0 && <CardForm ref={card} showTestCards />}
          <Button type="submit" isBusy={isBusy}>
            {amount > 0
              ? t("payments.pay", { price: formatAmount(amount, product.currency, language) })
              : t("payments.activate")}
          </Button>
        </form>
      )}
    </div>
  );
}
