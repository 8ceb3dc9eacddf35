import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, configure, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { API, REFERRAL_API, type ReferralSummary } from "@tonus/contract";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, describe, expect, it } from "vitest";
import "../../i18n/index.ts";
import { decideRoute } from "../../app/access.ts";
import { RouteGate } from "../../app/RouteGate.tsx";
import { changeLanguage } from "../../i18n/index.ts";
import { configureApiClient } from "../../shared/api/client.ts";

configure({ asyncUtilTimeout: 5000 });

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });
}

const summary = (over: Partial<ReferralSummary> = {}): ReferralSummary => ({
  code: "ABCDEFGHIJKLMNOP",
  link: "http://tonus.test/auth/registration/?ref=ABCDEFGHIJKLMNOP",
  invited: 3,
  joined: 2,
  paid: 1,
  reward: { enabled: true, days_per_friend: 30, max_friends: 12, earned_friends: 1, earned_days: 30 },
  invitations: [],
  ...over,
});

type Call = { path: string; body: unknown };

function renderAt(path: string, respond: (path: string, body: unknown) => Response) {
  const calls: Call[] = [];
  configureApiClient({
    fetch: async (input, init) => {
      const url = String(input);
      const body =
        init?.body instanceof FormData ? init.body : init?.body ? JSON.parse(String(init.body)) : null;
      calls.push({ path: url, body });
      if (url.startsWith(API.session)) return json(200, { authenticated: true, user_type: "full" });
      return respond(url, body);
    },
  });
  const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], { initialEntries: [path] });
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return calls;
}

describe("referral page (spec §2 /referral, §4 Friend invite)", { timeout: 20_000 }, () => {
  afterEach(async () => {
    cleanup();
    await changeLanguage("en");
  });

  it("shows the link to copy, friends invited and counted, and the reward", async () => {
    renderAt("/referral", (path) =>
      path.startsWith(REFERRAL_API.referral) ? json(200, summary()) : json(404, { code: "not_found" }),
    );
    const link = (await screen.findByLabelText("Referral link")) as HTMLInputElement;
    expect(link.value).toBe("http://tonus.test/auth/registration/?ref=ABCDEFGHIJKLMNOP");
    expect(link.readOnly).toBe(true);
    expect(screen.getByRole("button", { name: "Copy link" })).toBeTruthy();
    expect(
      screen.getByText(
        "Share your link: for every friend who signs up with it and pays for PRO, you get 30 days of PRO free. The reward counts for up to 12 friends.",
      ),
    ).toBeTruthy();
    expect(screen.getByText("Friends invited").nextElementSibling?.textContent).toBe("3");
    expect(screen.getByText("Friends who signed up").nextElementSibling?.textContent).toBe("2");
    expect(screen.getByText("PRO earned").nextElementSibling?.textContent).toBe("30 days");
    expect(screen.getByText("You have not invited anyone yet.")).toBeTruthy();
  });

  it("makes the link on the first visit with a POST (reading never writes)", async () => {
    const calls = renderAt("/referral", (path) =>
      path.startsWith(REFERRAL_API.code)
        ? json(200, summary())
        : json(200, summary({ code: null, link: null })),
    );
    const link = (await screen.findByLabelText("Referral link")) as HTMLInputElement;
    expect(link.value).toBe("http://tonus.test/auth/registration/?ref=ABCDEFGHIJKLMNOP");
    expect(calls.filter((c) => c.path.startsWith(REFERRAL_API.code))).toHaveLength(1);
  });

  it("speaks Russian with correct plurals", async () => {
    await changeLanguage("ru");
    renderAt("/referral", () =>
      json(
        200,
        summary({
          reward: { enabled: true, days_per_friend: 21, max_friends: 3, earned_friends: 2, earned_days: 42 },
          invitations: [
            {
              email: "a@example.test",
              invited_at: "2026-03-01T10:00:00Z",
              last_sent_at: "2026-03-02T10:00:00Z",
              times_sent: 2,
              status: "invited",
            },
          ],
        }),
      ),
    );
    expect(
      await screen.findByText(
        "Поделитесь ссылкой: за каждого друга, который зарегистрируется по ней и оплатит PRO, вы получите 21 день PRO бесплатно. Награда начисляется не более чем за 3 друзей.",
      ),
    ).toBeTruthy();
    expect(screen.getByText("Получено PRO").nextElementSibling?.textContent).toBe("42 дня");
    expect(screen.getByText(/отправлено 2 раза/)).toBeTruthy();
  });

  it("looks the friend up, says User not found, invite him, and sends the invitation", async () => {
    let invited = false;
    const calls = renderAt("/referral", (path) => {
      if (path.startsWith(REFERRAL_API.lookup)) return json(200, { found: false });
      if (path.startsWith(REFERRAL_API.invite)) {
        invited = true;
        return json(200, {
          status: "sent",
          invitation: {
            email: "friend@example.test",
            invited_at: "2026-03-01T10:00:00Z",
            last_sent_at: "2026-03-01T10:00:00Z",
            times_sent: 1,
            status: "invited",
          },
        });
      }
      return json(
        200,
        summary({
          invitations: invited
            ? [
                {
                  email: "friend@example.test",
                  invited_at: "2026-03-01T10:00:00Z",
                  last_sent_at: "2026-03-01T10:00:00Z",
                  times_sent: 1,
                  status: "invited",
                },
              ]
            : [],
        }),
      );
    });
    const field = await screen.findByLabelText("Friend's email");
    fireEvent.change(field, { target: { value: "not an address" } });
    fireEvent.click(screen.getByRole("button", { name: "Find" }));
    expect(await screen.findByText("Enter a valid email address")).toBeTruthy();
    fireEvent.change(field, { target: { value: "friend@example.test" } });
    fireEvent.click(screen.getByRole("button", { name: "Find" }));
    expect(await screen.findByText("User not found, invite him")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Send an invitation to friend@example.test" }));
    expect(await screen.findByText("Invitation sent to friend@example.test.")).toBeTruthy();
    expect(await screen.findByRole("cell", { name: "friend@example.test" })).toBeTruthy();
    expect(calls.filter((c) => c.path.startsWith(REFERRAL_API.lookup)).map((c) => c.body)).toEqual([
      { email: "friend@example.test" },
    ]);
    expect(calls.filter((c) => c.path.startsWith(REFERRAL_API.invite)).map((c) => c.body)).toEqual([
      { email: "friend@example.test" },
    ]);
  });

  it("tells when the friend already uses Tonus, and when the limit is reached", async () => {
    let lookups = 0;
    renderAt("/referral", (path) => {
      if (path.startsWith(REFERRAL_API.lookup))
        return ++lookups === 1
          ? json(200, { found: true })
          : json(429, { error: "Too many attempts, try again later", code: "rate_limited" });
      return json(200, summary());
    });
    const field = await screen.findByLabelText("Friend's email");
    fireEvent.change(field, { target: { value: "known@example.test" } });
    fireEvent.click(screen.getByRole("button", { name: "Find" }));
    expect(await screen.findByText("known@example.test already uses Tonus.")).toBeTruthy();
    expect(screen.queryByRole("button", { name: /Send an invitation/ })).toBeNull();
    fireEvent.click(screen.getByRole("button", { name: "Find" }));
    expect(await screen.findByText("Too many attempts. Please wait a little and try again.")).toBeTruthy();
  });
});

describe("registration through a referral link", { timeout: 20_000 }, () => {
  afterEach(() => {
    cleanup();
    sessionStorage.clear();
  });

  it("keeps the code from /user/register on the way to the registration page", () => {
    const decision = decideRoute({
      pathname: "/user/register",
      search: "?ref=ABCDEFGHIJKLMNOP",
      hash: "",
      origin: "http://tonus.test",
      userType: "anonymous",
      isWebView: false,
    });
    expect(decision).toEqual({
      kind: "navigate",
      to: "/auth/registration/?destination=%2Fdashboard&ref=ABCDEFGHIJKLMNOP",
    });
  });

  it("sends the link's code with the registration, remembered across a detour", async () => {
    const bodies: unknown[] = [];
    configureApiClient({
      fetch: async (input, init) => {
        const url = String(input);
        if (url.startsWith(API.session)) return json(200, { authenticated: false, user_type: "anonymous" });
        if (url.startsWith(API.register)) {
          bodies.push(JSON.parse(String(init?.body)));
          return json(200, { ok: true });
        }
        return json(404, { code: "not_found" });
      },
    });
    // The visitor opened the link, then came back to the page without the query.
    sessionStorage.setItem("tonus.referral", "ABCDEFGHIJKLMNOP");
    const router = createMemoryRouter([{ path: "*", element: <RouteGate /> }], {
      initialEntries: ["/auth/registration/"],
    });
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("You are signing up through a friend's invitation.")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "new@example.test" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "Correct-horse-9" } });
    fireEvent.click(screen.getByRole("button", { name: "Create account" }));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toMatchObject({ email: "new@example.test", referral_code: "ABCDEFGHIJKLMNOP" });
  });
});
