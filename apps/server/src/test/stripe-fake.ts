import http from "node:http";

/**
 * A local HTTP server that answers as Stripe's API does, for the Stripe provider's tests. What is mocked:
 * Stripe itself (its API is outside this machine). The answers are written from Stripe's documented formats
 * (https://docs.stripe.com/api/payment_intents/object, /api/errors, /api/idempotent_requests,
 * /api/customers/delete, /api/payment_methods/customer_list, /api/payment_methods/detach) for Stripe's
 * documented test PaymentMethods pm_card_visa, pm_card_chargeDeclined and pm_card_authenticationRequired.
 * `failNext(path, n)` answers the next n requests to a path with Stripe's 500 `api_error`.
 * The SDK, our code and the webhook signatures are real: signatures are computed with Stripe's own
 * `webhooks.generateTestHeaderString` and a test secret.
 */
export const WEBHOOK_SECRET = "whsec_test_tonus_secret";
export type Intent = Record<string, unknown> & { id: string; status: string };

export function fakeStripe() {
  const intents = new Map<string, Intent>();
  const keys = new Map<string, { params: string; status: number; body: unknown }>();
  const calls: { method: string; path: string; key: string | undefined; params: URLSearchParams }[] = [];
  /** Customers Stripe holds (deleted ones are removed) and the cards attached to each. */
  const customers = new Map<string, Set<string>>();
  const failures = new Map<string, number>();
  /** Payment intents refunded in full. */
  const refunded = new Set<string>();
  let n = 0;
  const missing = (what: string, id: string) => ({
    error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}: '${id}'` },
  });
  const card = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2034 };
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://stripe.local");
      const params = new URLSearchParams(raw || url.search);
      const key = req.headers["idempotency-key"] as string | undefined;
      calls.push({ method: req.method ?? "", path: url.pathname, key, params });
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json", "request-id": `req_${++n}` });
        res.end(JSON.stringify(body));
      };
      const expanded = params
        .getAll("expand[]")
        .concat(params.getAll("expand[0]"), params.getAll("expand[1]"));
      const expandPm = (intent: Intent) => ({
        ...intent,
        ...(expanded.includes("payment_method")
          ? { payment_method: { id: intent.payment_method, object: "payment_method", card } }
          : {}),
        ...(expanded.includes("latest_charge")
          ? {
              latest_charge: {
                id: `ch_${intent.id.slice(3)}`,
                object: "charge",
                payment_intent: intent.id,
                refunded: refunded.has(intent.id),
                amount_refunded: refunded.has(intent.id) ? intent.amount : 0,
              },
            }
          : {}),
      });
      const failing = failures.get(url.pathname) ?? 0;
      if (failing > 0) {
        failures.set(url.pathname, failing - 1);
        return send(500, { error: { type: "api_error", message: "An unknown error occurred" } });
      }
      if (req.method === "POST" && key) {
        const seen = keys.get(key);
        if (seen && seen.params !== raw)
          return send(400, {
            error: {
              type: "idempotency_error",
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
            },
          });
        if (seen) return send(seen.status, seen.body);
      }
      const remember = (status: number, body: unknown) => {
        if (req.method === "POST" && key) keys.set(key, { params: raw, status, body });
        send(status, body);
      };
      if (req.method === "POST" && url.pathname === "/v1/customers") {
        const id = `cus_${++n}`;
        customers.set(id, new Set());
        return remember(200, { id, object: "customer", metadata: {} });
      }
      const customerPath = /^\/v1\/customers\/([^/]+)(\/payment_methods)?$/.exec(url.pathname);
      if (customerPath) {
        const id = customerPath[1] ?? "";
        const cards = customers.get(id);
        if (!cards) return send(404, missing("customer", id));
        if (req.method === "GET" && customerPath[2])
          return send(200, {
            object: "list",
            url: url.pathname,
            has_more: false,
            data: [...cards].map((pm) => ({
              id: pm,
              object: "payment_method",
              type: "card",
              customer: id,
              card,
            })),
          });
        if (req.method === "DELETE" && !customerPath[2]) {
          customers.delete(id);
          return send(200, { id, object: "customer", deleted: true });
        }
      }
      const detach = /^\/v1\/payment_methods\/([^/]+)\/detach$/.exec(url.pathname);
      if (req.method === "POST" && detach) {
        const pm = detach[1] ?? "";
        const owner = [...customers].find(([, cards]) => cards.has(pm));
        if (!owner) return remember(400, missing("payment_method attached to a customer", pm));
        owner[1].delete(pm);
        return remember(200, { id: pm, object: "payment_method", type: "card", customer: null, card });
      }
      if (req.method === "POST" && url.pathname === "/v1/payment_intents") {
        const pm = params.get("payment_method") ?? "";
        const id = `pi_${++n}`;
        const intent: Intent = {
          id,
          client_secret: `${id}_secret_${n}`,
          object: "payment_intent",
          amount: Number(params.get("amount")),
          currency: params.get("currency"),
          customer: params.get("customer"),
          payment_method: pm,
          metadata: { tonus_transaction: params.get("metadata[tonus_transaction]") },
          status: "succeeded",
          last_payment_error: null,
          next_action: null,
        };
        if (pm === "pm_card_chargeDeclined") {
          intent.status = "requires_payment_method";
          intent.last_payment_error = {
            type: "card_error",
            code: "card_declined",
            message: "Your card was declined.",
          };
          intents.set(intent.id, intent);
          return remember(402, {
            error: {
              type: "card_error",
              code: "card_declined",
              decline_code: "generic_decline",
              message: "Your card was declined.",
              payment_intent: intent,
            },
          });
        }
        const customer = params.get("customer");
        if (customer && params.get("setup_future_usage")) customers.get(customer)?.add(pm);
        if (pm === "pm_card_authenticationRequired") {
          intent.status = "requires_action";
          intent.next_action = { type: "use_stripe_sdk", use_stripe_sdk: {} };
        }
        intents.set(intent.id, intent);
        return remember(200, expandPm(intent));
      }
      const match = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
      if (req.method === "GET" && match) {
        const intent = intents.get(match[1] ?? "");
        if (!intent)
          return send(404, {
            error: {
              type: "invalid_request_error",
              code: "resource_missing",
              message: "No such payment_intent",
            },
          });
        return send(200, expandPm(intent));
      }
      if (req.method === "POST" && url.pathname === "/v1/refunds") {
        refunded.add(params.get("payment_intent") ?? "");
        return remember(200, {
          id: `re_${++n}`,
          object: "refund",
          payment_intent: params.get("payment_intent"),
          status: "succeeded",
        });
      }
      send(404, {
        error: {
          type: "invalid_request_error",
          message: `Unrecognized request URL (${req.method}: ${url.pathname})`,
        },
      });
    });
  });
  const failNext = (path: string, times: number) => failures.set(path, times);
  return { server, intents, calls, customers, refunded, failNext };
}
