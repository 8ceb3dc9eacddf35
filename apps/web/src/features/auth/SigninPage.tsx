import { useMutation, useQueryClient } from "@tanstack/react-query";
import { API } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation } from "react-router";
import { withQuery } from "../../app/access.ts";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { isValidEmail } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { getSafeDestination, useGoToDestination } from "./destination.ts";
import { describeError } from "./error-text.ts";
import { SocialButtons } from "./SocialButtons.tsx";
import { SESSION_QUERY_KEY } from "./use-auth.ts";

export default function SigninPage() {
  const { t } = useTranslation();
  const { search } = useLocation();
  const queryClient = useQueryClient();
  const goToDestination = useGoToDestination();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const destination = getSafeDestination(search);

  const signin = useMutation({
    mutationFn: () =>
      apiRequest(API.signin, { method: "POST", body: { email: email.trim(), password }, isDataCall: false }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
      await queryClient.fetchQuery({ queryKey: ["config"], queryFn: () => apiRequest(API.configEnv) });
      goToDestination(search);
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isValidEmail(email)) {
      setEmailError(t("auth.email_invalid"));
      return;
    }
    setEmailError(null);
    signin.mutate();
  };

  const failure =
    signin.error instanceof ApiError && signin.error.code === "invalid_credentials"
      ? t("auth.signin.invalid_credentials")
      : signin.error
        ? describeError(t, signin.error)
        : null;

  return (
    <>
      <form onSubmit={onSubmit} noValidate aria-busy={signin.isPending}>
        {failure && <Alert status="error">{failure}</Alert>}
        <TextField
          label={t("auth.email")}
          type="email"
          autoComplete="email"
          inputMode="email"
          required
          value={email}
          error={emailError}
          onChange={(event) => setEmail(event.target.value)}
        />
        <TextField
          label={t("auth.password")}
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <Button type="submit" className="btn--block" isBusy={signin.isPending}>
          {t("auth.signin.submit")}
        </Button>
      </form>
      <p>
        <Link to={withQuery("/auth/password-recovery", { destination })}>{t("auth.signin.forgot")}</Link>
      </p>
      <SocialButtons destination={destination} />
      <p>
        {t("auth.signin.no_account")}{" "}
        <Link to={withQuery("/auth/registration/", { destination })}>{t("auth.signin.to_registration")}</Link>
      </p>
    </>
  );
}
