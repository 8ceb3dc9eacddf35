import { useEffect } from "react";
import { LoadingState } from "../../shared/ui/Spinner.tsx";

export const PAYMENT_METHOD_PAGE = "/profile/payment-method";

/** /payment-method: a full-page redirect to the profile's payment-method page (spec §2). */
export default function PaymentMethodRedirect() {
  useEffect(() => window.location.replace(PAYMENT_METHOD_PAGE), []);
  return <LoadingState />;
}
