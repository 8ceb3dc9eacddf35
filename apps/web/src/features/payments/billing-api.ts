import {
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from "@tanstack/react-query";
import {
  BILLING_API,
  type CouponCheckResponse,
  type PayRequest,
  type PayResponse,
  type Product,
  type Purchase,
  type TransactionsResponse,
} from "@tonus/contract";
import { apiRequest } from "../../shared/api/client.ts";
import { PROFILE_QUERY_KEY } from "../profile/use-profile.ts";

export const BILLING_QUERY_KEY = ["billing"] as const;
const PRODUCTS_KEY = [...BILLING_QUERY_KEY, "products"] as const;
const PURCHASES_KEY = [...BILLING_QUERY_KEY, "purchases"] as const;
const HISTORY_KEY = [...BILLING_QUERY_KEY, "history"] as const;
const METHODS_KEY = [...BILLING_QUERY_KEY, "payment-methods"] as const;

/** Spec §9: the page refreshes this long after a payment (the server's state decides, nothing optimistic). */
export const PAYMENT_FOLLOW_UP_MS = 10_000;
/** Spec §9: pay history page size. */
export const HISTORY_PAGE_SIZE = 5;

/** Spec §8: a product load failure is ignored silently (an empty list). */
export function useProducts(language: string) {
  return useQuery({
    queryKey: [...PRODUCTS_KEY, language],
    queryFn: async () => {
      try {
        return await apiRequest<Product[]>(BILLING_API.products, { isDataCall: false });
      } catch {
        return [] as Product[];
      }
    },
  });
}

export function usePurchases(enabled = true) {
  return useQuery({
    queryKey: PURCHASES_KEY,
    queryFn: () => apiRequest<Purchase[]>(BILLING_API.purchases),
    enabled,
  });
}

export function usePaymentMethods(enabled = true) {
  return useQuery({
    queryKey: METHODS_KEY,
    queryFn: () =>
      apiRequest<{ result: { data: { id: string; last4: string }[] } }>(BILLING_API.paymentMethods),
    enabled,
  });
}

/** Spec §4 Pay history: each fetch adds 5 to the limit and appends the next page to the results. */
export function useTransactions() {
  return useInfiniteQuery({
    queryKey: HISTORY_KEY,
    initialPageParam: 0,
    queryFn: ({ pageParam }) =>
      apiRequest<TransactionsResponse>(BILLING_API.transactions, {
        query: { limit: String(HISTORY_PAGE_SIZE), offset: String(pageParam) },
      }),
    getNextPageParam: (last) =>
      last.offset + last.results.length < last.count ? last.offset + HISTORY_PAGE_SIZE : undefined,
  });
}

export function checkCoupon(productId: number, coupon: string) {
  return apiRequest<CouponCheckResponse>(BILLING_API.couponCheck, {
    method: "POST",
    body: { productId, coupon },
  });
}

/**
 * One payment attempt. `idempotencyKey` is new for each attempt (each press of Pay): the request's own
 * retry (a refreshed CSRF token) is then answered with the first result, never charged twice.
 */
export function pay(body: PayRequest, idempotencyKey?: string) {
  return apiRequest<PayResponse>(BILLING_API.pay, {
    method: "POST",
    body,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });
}

/** Spec §4 Payment: reload products, profile, pay history, connected packages and the page's own data. */
export function refreshAfterPayment(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ queryKey: BILLING_QUERY_KEY });
  void queryClient.invalidateQueries({ queryKey: PROFILE_QUERY_KEY });
}

export function useCancelSubscription() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (purchaseId: string) =>
      apiRequest<{ ok: true }>(BILLING_API.cancel, { method: "POST", body: { purchase_id: purchaseId } }),
    onSettled: () => refreshAfterPayment(queryClient),
  });
}
