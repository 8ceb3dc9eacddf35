import { expect } from "@playwright/test";
import { E2E_MAIL_API_PORT } from "./ports.ts";

type Received = { to: string[]; raw: string; at: number };

/** Decodes a quoted-printable MIME body (UTF-8) enough to read links and text. */
function decodeQuotedPrintable(raw: string): string {
  const soft = raw.replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const hex = soft[i] === "=" ? soft.slice(i + 1, i + 3) : "";
    if (/^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i] ?? "", "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/**
 * Waits for a message to `to` on the test's SMTP server and returns its decoded text: the latest one,
 * or, with `containing`, the latest whose decoded text holds that string (another mail the server
 * sends meanwhile, a weekly report say, is passed over).
 */
export async function waitForMail(
  to: string,
  opts: { after?: number; timeoutMs?: number; containing?: string } = {},
): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const res = await fetch(`http://127.0.0.1:${E2E_MAIL_API_PORT}/?to=${encodeURIComponent(to)}`);
        const all = (await res.json()) as Received[];
        found = all
          .filter((m) => m.at >= (opts.after ?? 0))
          .map((m) => decodeMail(m.raw))
          .filter((text) => opts.containing === undefined || text.includes(opts.containing))
          .at(-1);
        return found !== undefined;
      },
      { timeout: opts.timeoutMs ?? 15_000 },
    )
    .toBe(true);
  return found ?? "";
}

function decodeMail(raw: string): string {
  const decoded = decodeQuotedPrintable(raw);
  return /Content-Transfer-Encoding: base64/i.test(raw) ? decodeBase64Parts(raw, decoded) : decoded;
}

function decodeBase64Parts(raw: string, fallback: string): string {
  const parts = raw.split(/\r?\n\r?\n/);
  const decoded = parts
    .map((p) => (/^[A-Za-z0-9+/=\r\n]+$/.test(p.trim()) ? Buffer.from(p, "base64").toString("utf8") : p))
    .join("\n");
  return `${fallback}\n${decoded}`;
}

/** The first link in a message that starts with `prefix`. */
export function findLink(text: string, prefix: string): string {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`${escaped}[^\\s"'<>]+`).exec(text);
  if (!m) throw new Error(`no link starting with ${prefix} in:\n${text}`);
  return m[0];
}
