import { useMutation } from "@tanstack/react-query";
import { API } from "@tonus/contract";
import { type FormEvent, useState } from "react";
import { useTranslation } from "react-i18next";
import { ApiError, apiRequest } from "../../shared/api/client.ts";
import { MIN_PASSWORD_CHARS, ratePassword } from "../../shared/format/validation.ts";
import { Alert } from "../../shared/ui/Alert.tsx";
import { showAlert } from "../../shared/ui/alert-store.ts";
import { Button } from "../../shared/ui/Button.tsx";
import { TextField } from "../../shared/ui/TextField.tsx";
import { describeError } from "../auth/error-text.ts";

export function PasswordChangeForm() {
  const { t } = useTranslation();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [nextError, setNextError] = useState<string | null>(null);
  const change = useMutation({
    mutationFn: () =>
      apiRequest(API.passwordChange, {
        method: "POST",
        body: { current_password: current, new_password: next, sign_out_other_sessions: true },
      }),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      showAlert(t("profile.password.changed"));
    },
  });

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (next.length < MIN_PASSWORD_CHARS) {
      setNextError(t("auth.password_too_short", { count: MIN_PASSWORD_CHARS }));
      return;
    }
    setNextError(null);
    change.mutate();
  };

  const failure =
    change.error instanceof ApiError && change.error.code === "wrong_password"
      ? t("profile.password.wrong_current")
      : change.error
        ? describeError(t, change.error)
        : null;

  return (
    <form onSubmit={onSubmit} noValidate aria-busy={change.isPending}>
      {failure && <Alert status="error">{failure}</Alert>}
      <TextField
        label={t("profile.password.current")}
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={(event) => setCurrent(event.target.value)}
      />
      <TextField
        label={t("profile.password.new")}
        type="password"
        autoComplete="new-password"
        required
        value={next}
        error={nextError}
        hint={
          next === "" ? t("profile.password.others_signed_out") : t(`auth.strength.${ratePassword(next)}`)
        }
        onChange={(event) => setNext(event.target.value)}
      />
      <Button type="submit" isBusy={change.isPending} disabled={current === "" || next === ""}>
        {t("profile.password.submit")}
      </Button>
    </form>
  );
}
