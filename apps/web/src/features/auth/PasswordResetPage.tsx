import { useMutation } from "@tanstack/react-query";
import { API } from "@tonus/contract";
import { type FormEvent, useEffect, useState } from "react";
import { useTranslation } from "react-i18next";
import { Link, useLocation, useNavigate } from "react-router";
import { apiRequest } from "../../shared/api/client.ts";
import { MIN_PASSWORD_CHARS, ratePassword } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { describeError } from "./error-text.ts";

export default function PasswordResetPage() {
  const { t } = useTranslation();
  const { search, pathname } = useLocation();
  const navigate = useNavigate();
  // Read once, then drop the one-time token from the address bar so it is not kept in history.
  const [token] = useState(() => new URLSearchParams(search).get("token") ?? "");
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, on arrival
  useEffect(() => {
    const query = new URLSearchParams(search);
    if (!query.has("token")) return;
    query.delete("token");
    const rest = query.toString();
    void navigate(rest === "" ? pathname : `${pathname}?${rest}`, { replace: true });
  }, []);
  const [password, setPassword] = useState("");
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: () =>
      apiRequest(API.passwordReset, { method: "POST", body: { token, password }, isDataCall: false }),
  });

  if (token === "") {
    return (
      <>
        <Alert status="error">{t("auth.reset.missing_token")}</Alert>
        <Link to="/auth/password-recovery">{t("auth.reset.request_new")}</Link>
      </>
    );
  }
  if (reset.isSuccess) {
    return (
      <>
        <Alert status="success">{t("auth.reset.done")}</Alert>
        <Link className="btn btn--primary btn--block" to="/auth/signin">
          {t("auth.signin.submit")}
        </Link>
      </>
    );
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (password.length < MIN_PASSWORD_CHARS) {
      setPasswordError(t("auth.password_too_short", { count: MIN_PASSWORD_CHARS }));
      return;
    }
    setPasswordError(null);
    reset.mutate();
  };

  return (
    <form onSubmit={onSubmit} noValidate aria-busy={reset.isPending}>
      {reset.error && <Alert status="error">{describeError(t, reset.error)}</Alert>}
      <TextField
        label={t("auth.reset.new_password")}
        type="password"
        autoComplete="new-password"
        required
        value={password}
        error={passwordError}
        hint={
          password === ""
            ? t("auth.password_rule", { count: MIN_PASSWORD_CHARS })
            : t(`auth.strength.${ratePassword(password)}`)
        }
        onChange={(event) => setPassword(event.target.value)}
      />
      <Button type="submit" className="btn--block" isBusy={reset.isPending}>
        {t("auth.reset.submit")}
      </Button>
    </form>
  );
}
