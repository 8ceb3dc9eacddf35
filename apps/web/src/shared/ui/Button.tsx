import type { ButtonHTMLAttributes } from "react";
import { Spinner } from "./Spinner.tsx";

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "ghost" | "danger";
  isBusy?: boolean;
};

export function Button({
  variant = "primary",
  isBusy = false,
  className,
  children,
  disabled,
  ...rest
}: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      disabled={disabled || isBusy}
      aria-busy={isBusy || undefined}
      className={["btn", `btn--${variant}`, className].filter(Boolean).join(" ")}
    >
      {isBusy && <Spinner size="small" />}
      {children}
    </button>
  );
}
