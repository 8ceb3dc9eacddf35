import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { RegisterRequest } from "@tonus/contract";
import { API } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { Trans, useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { withQuery } from "../../app/access.ts";
import { getCurrentLanguage } from "../../i18n/index.ts";
import { apiRequest } from "../../shared/api/client.ts";
import { isValidEmail, MIN_PASSWORD_CHARS, ratePassword } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { trackEvent } from "../analytics/track.ts";
import { forgetReferralCode, readReferralCode } from "../referral/referral-code.ts";
import { getSafeDestination, useGoToDestination } from "./destination.ts";
import { describeError } from "./error-text.ts";
import { SocialButtons } from "./SocialButtons.tsx";
import { SESSION_QUERY_KEY } from "./use-auth.ts";

function getBrowserTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export default function RegistrationPage() {
  const { t } = useTranslation();
  const { search } = useLocation();
  const queryClient = useQueryClient();
  const goToDestination = useGoToDestination();
  const destination = getSafeDestination(search);
  const referralCode = readReferralCode(search);
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});

  const register = useMutation({
    mutationFn: (body: RegisterRequest) =>
      apiRequest(API.register, { method: "POST", body, isDataCall: false }),
    onSuccess: async () => {
      forgetReferralCode();
      await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      trackEvent("sign_up", { method: "email" });
      goToDestination(search);
    },
  });

  const strength = ratePassword(password);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const next: typeof errors = {};
    if (!isValidEmail(email)) next.email = t("auth.email_invalid");
    if (password.length < MIN_PASSWORD_CHARS)
      next.password = t("auth.password_too_short", { count: MIN_PASSWORD_CHARS });
    setErrors(next);
    if (next.email || next.password) return;
    register.mutate({
      email: email.trim(),
      password,
      name: name.trim() === "" ? undefined : name.trim(),
      timezone: getBrowserTimeZone(),
      language: getCurrentLanguage(),
      ...(referralCode ? { referral_code: referralCode } : {}),
    });
  };

  return (
    <>
      {referralCode && <p className="muted">{t("auth.registration.referred")}</p>}
      <form onSubmit={onSubmit} noValidate aria-busy={register.isPending}>
        {register.error && <Alert status="error">{describeError(t, register.error)}</Alert>}
        <TextField
          label={t("auth.name")}
          autoComplete="name"
          value={name}
          maxLength={100}
          onChange={(event) => setName(event.target.value)}
        />
        <TextField
          label={t("auth.email")}
          type="email"
          autoComplete="email"
          inputMode="email"
          required
          value={email}
          error={errors.email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <TextField
          label={t("auth.password")}
          type="password"
          autoComplete="new-password"
          required
          value={password}
          error={errors.password}
          hint={
            <span aria-live="polite">
              {password === ""
                ? t("auth.password_rule", { count: MIN_PASSWORD_CHARS })
                : t(`auth.strength.${strength}`)}
            </span>
          }
          onChange={(event) => setPassword(event.target.value)}
        />
        <Button type="submit" className="btn--block" isBusy={register.isPending}>
          {t("auth.registration.submit")}
        </Button>
      </form>
      <SocialButtons destination={destination} />
      <p>
        {t("auth.registration.have_account")}{" "}
        <Link to={withQuery("/auth/signin", { destination })}>{t("auth.registration.to_signin")}</Link>
      </p>
      <p className="muted">
        <Trans
          i18nKey="auth.registration.consent"
          components={{ terms: <Link to="/terms" />, privacy: <Link to="/privacy-policy" /> }}
        />
      </p>
    </>
  );
}
