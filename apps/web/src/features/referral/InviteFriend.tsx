import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError } from "../../shared/api/client.ts";
import { isValidEmail } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { describeError } from "../auth/error-text.ts";
import { inviteFriend, lookupFriend, REFERRAL_QUERY_KEY } from "./referral-api.ts";

type Result =
  | { kind: "idle" }
  | { kind: "not_found"; email: string }
  | { kind: "found"; email: string }
  | { kind: "sent"; email: string }
  | { kind: "error"; text: string };

/**
 * Spec §4 Friend invite: look the address up; "User not found, invite him" offers the invitation e-mail,
 * sent in the page's language with the person's referral link.
 */
export function InviteFriend() {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [fieldError, setFieldError] = useState<string | null>(null);
  const [result, setResult] = useState<Result>({ kind: "idle" });
  const [isBusy, setIsBusy] = useState(false);

  function failure(error: unknown): Result {
    if (error instanceof ApiError && error.code === "conflict")
      return { kind: "error", text: t("referral.invite.too_soon") };
    return { kind: "error", text: describeError(t, error) };
  }

  async function find(event: FormEvent) {
    event.preventDefault();
    const address = email.trim();
    if (!isValidEmail(address)) {
      setFieldError(t("auth.email_invalid"));
      return;
    }
    setFieldError(null);
    setIsBusy(true);
    try {
      const { found } = await lookupFriend(address);
      setResult({ kind: found ? "found" : "not_found", email: address });
    } catch (error) {
      setResult(failure(error));
    } finally {
      setIsBusy(false);
    }
  }

  async function send(address: string) {
    setIsBusy(true);
    try {
      await inviteFriend(address);
      setResult({ kind: "sent", email: address });
      setEmail("");
      await queryClient.invalidateQueries({ queryKey: REFERRAL_QUERY_KEY });
    } catch (error) {
      setResult(failure(error));
    } finally {
      setIsBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title" className="card__title">
        {t("referral.invite.title")}
      </h2>
      <form className="row referral-invite" onSubmit={(e) => void find(e)} noValidate>
        <TextField
          label={t("referral.invite.email")}
          type="email"
          inputMode="email"
          autoComplete="off"
          required
          value={email}
          error={fieldError}
          onChange={(e) => {
            setEmail(e.target.value);
            if (result.kind !== "sent") setResult({ kind: "idle" });
          }}
        />
        <Button type="submit" variant="secondary" isBusy={isBusy && result.kind !== "not_found"}>
          {t("referral.invite.find")}
        </Button>
      </form>
      <div aria-live="polite">
        {result.kind === "not_found" && (
          <Alert status="info">
            <p>{t("referral.invite.not_found")}</p>
            <Button isBusy={isBusy} onClick={() => void send(result.email)}>
              {t("referral.invite.send", { email: result.email })}
            </Button>
          </Alert>
        )}
        {result.kind === "found" && (
          <Alert status="info">{t("referral.invite.found", { email: result.email })}</Alert>
        )}
        {result.kind === "sent" && (
          <Alert status="success">{t("referral.invite.sent", { email: result.email })}</Alert>
        )}
      </div>
      {result.kind === "error" && <Alert status="error">{result.text}</Alert>}
    </section>
  );
}
