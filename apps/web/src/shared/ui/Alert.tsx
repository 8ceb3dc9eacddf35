import type { ReactNode } from "react";

/**
 * An inline message inside a page or form; errors are announced at once. `announced={false}` for one
 * that takes the focus as it appears: the focus has it read, and a live region would say it twice.
 */
export function Alert({
  status,
  announced = true,
  children,
}: {
  status: "success" | "error" | "info";
  announced?: boolean;
  children: ReactNode;
}) {
  return (
    <div
      className={`alert alert--${status}`}
      role={announced ? (status === "error" ? "alert" : "status") : undefined}
    >
      {children}
    </div>
  );
}
