import { useMutation } from "@tanstack/react-query";
import { API } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { isValidEmail } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { describeError } from "./error-text.ts";

export default function PasswordRecoveryPage() {
  const { t } = useTranslation();
  const [email, setEmail] = useState("");
  const [emailError, setEmailError] = useState<string | null>(null);
  const recover = useMutation({
    mutationFn: () =>
      apiRequest(API.passwordRecover, { method: "POST", body: { email: email.trim() }, isDataCall: false }),
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isValidEmail(email)) {
      setEmailError(t("auth.email_invalid"));
      return;
    }
    setEmailError(null);
    recover.mutate();
  };

  if (recover.isSuccess) {
    return (
      <>
        <Alert status="success">{t("auth.recovery.sent", { email: email.trim() })}</Alert>
        <Link to="/auth/signin">{t("auth.recovery.back")}</Link>
      </>
    );
  }

  const failure =
    recover.error instanceof ApiError && recover.error.code === "user_not_found"
      ? t("auth.recovery.no_user")
      : recover.error
        ? describeError(t, recover.error)
        : null;

  return (
    <>
      <p className="muted">{t("auth.recovery.intro")}</p>
      <form onSubmit={onSubmit} noValidate aria-busy={recover.isPending}>
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
        <Button type="submit" className="btn--block" isBusy={recover.isPending}>
          {t("auth.recovery.submit")}
        </Button>
      </form>
      <p>
        <Link to="/auth/signin">{t("auth.recovery.back")}</Link>
      </p>
    </>
  );
}
