import type { ReactNode } from "react";
import { Link } from "react-router";
import { convertAddressLink, isExternalLink } from "../webview/webview.ts";

/** A link that follows the spec's rules: `{address}` → internal route; other hosts open in a new tab. */
export function SmartLink({
  href,
  children,
  className,
}: {
  href: string;
  children: ReactNode;
  className?: string;
}) {
  const target = convertAddressLink(href);
  if (isExternalLink(target, window.location.origin)) {
    return (
      <a href={target} className={className} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    );
  }
  return (
    <Link to={target} className={className}>
      {children}
    </Link>
  );
}
