import type { ButtonHTMLAttributes, Ref } from "react";
import { Spinner } from "./Spinner.tsx";

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  ref?: Ref<HTMLButtonElement>;
  variant?: "primary" | "secondary" | "ghost" | "danger";
  isBusy?: boolean;
  /**
   * While busy, stay focusable and announce itself unavailable (`aria-disabled`) instead of being
   * disabled, which would drop the keyboard's focus to the page's start; clicks do nothing meanwhile.
   * For a button that stays on the page while its work runs (Sync now) or that its work's outcome
   * replaces (the focus then goes to what replaced it), not a form's submit button.
   * `aria-disabled` alone makes a button unavailable the same focus-keeping way.
   */
  keepsFocusWhenBusy?: boolean;
};

export function Button({
  variant = "primary",
  isBusy = false,
  keepsFocusWhenBusy = false,
  className,
  children,
  disabled,
  onClick,
  "aria-disabled": ariaDisabled,
  ...rest
}: ButtonProps) {
  const softBusy = isBusy && keepsFocusWhenBusy;
  const unavailable = softBusy || ariaDisabled === true || ariaDisabled === "true";
  return (
    <button
      type="button"
      {...rest}
      onClick={unavailable ? undefined : onClick}
      disabled={disabled || (isBusy && !keepsFocusWhenBusy)}
      aria-disabled={unavailable || undefined}
      aria-busy={isBusy || undefined}
      className={["btn", `btn--${variant}`, className].filter(Boolean).join(" ")}
    >
      {isBusy && <Spinner size="small" />}
      {children}
    </button>
  );
}
