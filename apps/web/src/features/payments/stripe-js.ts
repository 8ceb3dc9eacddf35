/**
 * Stripe.js, loaded from Stripe (its terms forbid bundling it) only when the installation takes cards
 * through Stripe (BILLING_MODE=stripe; the CSP allows js.stripe.com only then). The card is entered in
 * Stripe's own frame and becomes a PaymentMethod id; 3-D Secure runs in Stripe's window. Only the parts
 * Tonus uses are typed here.
 */
export const STRIPE_JS_URL = "https://js.stripe.com/v3/";

export type StripeCardElement = {
  mount(target: HTMLElement): void;
  destroy(): void;
  on(event: "change", handler: (event: { complete?: boolean; error?: { message?: string } }) => void): void;
};

type StripeError = { message?: string };

export type StripeJs = {
  elements(options?: { locale?: string }): {
    create(type: "card", options?: { hidePostalCode?: boolean }): StripeCardElement;
  };
  createPaymentMethod(input: {
    type: "card";
    card: StripeCardElement;
  }): Promise<{ paymentMethod?: { id: string }; error?: StripeError }>;
  handleNextAction(input: {
    clientSecret: string;
  }): Promise<{ paymentIntent?: { id: string; status: string }; error?: StripeError }>;
};

type StripeFactory = (publishableKey: string, options?: { locale?: string }) => StripeJs;

declare global {
  interface Window {
    Stripe?: StripeFactory;
  }
}

const instances = new Map<string, Promise<StripeJs>>();

function scriptLoaded(): Promise<void> {
  if (window.Stripe) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const existing = document.querySelector<HTMLScriptElement>(`script[src="${STRIPE_JS_URL}"]`);
    const script = existing ?? document.createElement("script");
    script.addEventListener("load", () => resolve(), { once: true });
    script.addEventListener("error", () => reject(new Error("Stripe.js could not be loaded")), {
      once: true,
    });
    if (!existing) {
      script.src = STRIPE_JS_URL;
      script.async = true;
      document.head.append(script);
    }
  });
}

/** Stripe.js for this key and language, loaded once; a failed load may be retried. */
export function loadStripeJs(publishableKey: string, locale: string): Promise<StripeJs> {
  const key = `${publishableKey}/${locale}`;
  let instance = instances.get(key);
  if (!instance) {
    instance = scriptLoaded().then(() => {
      if (!window.Stripe) throw new Error("Stripe.js could not be loaded");
      return window.Stripe(publishableKey, { locale });
    });
    instance.catch(() => instances.delete(key));
    instances.set(key, instance);
  }
  return instance;
}
