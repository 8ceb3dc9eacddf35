import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type ReceivedMail = { to: string[]; raw: string };

/**
 * A real SMTP server on loopback that keeps every message it receives, for tests that read e-mail.
 * `rejectRecipients` are refused at RCPT TO with 550 (the server says no: the mail never left).
 */
export async function startTestSmtp(opts: { rejectRecipients?: readonly string[] } = {}): Promise<{
  url: string;
  messages: ReceivedMail[];
  close(): Promise<void>;
}> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (opts.rejectRecipients?.includes(address.address)) {
        const error = Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 });
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Bytes of one RFC 2047 encoded word's text (`B` base64 or `Q` quoted-printable with `_` for space). */
function encodedWordBytes(encoding: string, text: string): Buffer {
  if (encoding.toUpperCase() === "B") return Buffer.from(text, "base64");
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === "_") bytes.push(0x20);
    else if (c === "=" && /^[0-9A-F]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c.charCodeAt(0));
  }
  return Buffer.from(bytes);
}

/** A header value with its folding undone and its encoded words (RFC 2047) decoded as UTF-8. */
function decodeHeader(value: string): string {
  const unfolded = value.replace(/\r?\n[ \t]+/g, " ");
  // Whitespace between two encoded words is not part of the text; their bytes join before decoding.
  return unfolded.replace(/(=\?[^?]+\?[BQ]\?[^?]*\?=)(\s+=\?[^?]+\?[BQ]\?[^?]*\?=)*/gi, (run) => {
    const words = [...run.matchAll(/=\?[^?]+\?([BQ])\?([^?]*)\?=/gi)];
    return Buffer.concat(words.map((w) => encodedWordBytes(w[1] ?? "Q", w[2] ?? ""))).toString("utf8");
  });
}

/** The subject and the text of a single-part message as a person reads them. */
export function readMail(raw: string): { subject: string; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const subject = /^subject:(.*(?:\r?\n[ \t].*)*)/im.exec(head)?.[1]?.trim() ?? "";
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  const text =
    encoding === "base64"
      ? Buffer.from(body, "base64").toString("utf8")
      : encoding === "quoted-printable"
        ? encodedWordBytes("Q", body.replace(/=\r?\n/g, "").replace(/_/g, "=5F")).toString("utf8")
        : body;
  return { subject: decodeHeader(subject), text };
}
