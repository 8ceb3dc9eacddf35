import type { ReactNode } from "react";

/** An inline message inside a page or form; errors are announced at once. */
export function Alert({ status, children }: { status: "success" | "error" | "info"; children: ReactNode }) {
  return (
    <div className={`alert alert--${status}`} role={status === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
