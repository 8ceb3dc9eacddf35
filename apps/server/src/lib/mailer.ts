import nodemailer from "nodemailer";
import type { Db } from "../db/client.ts";
import { mailOutbox } from "../db/schema.ts";
import type { Logger } from "./logger.ts";

/** A picture the HTML part shows inline as `<img src="cid:…">` (mail clients show no SVG or remote images). */
export type InlineImage = { cid: string; filename: string; contentType: string; content: Buffer };

export type Mail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  userId?: string | null;
  /** Extra header lines, e.g. `List-Unsubscribe` (RFC 2369) and `List-Unsubscribe-Post` (RFC 8058). */
  headers?: Record<string, string>;
  images?: readonly InlineImage[];
};

export type Mailer = { send(mail: Mail): Promise<void> };

/**
 * Sends through SMTP when `SMTP_URL` is set. Without it (development, personal installs) the message
 * is kept in the `mail_outbox` table, viewable from the dev outbox page, and nothing leaves the machine
 * (without its extra headers and inline images).
 */
export function createMailer(opts: { db: Db; smtpUrl?: string; from: string; log: Logger }): Mailer {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : undefined;
  return {
    async send(mail) {
      if (transport) {
        await transport.sendMail({
          from: opts.from,
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          ...(mail.headers ? { headers: mail.headers } : {}),
          ...(mail.images?.length
            ? {
                attachments: mail.images.map((image) => ({
                  cid: image.cid,
                  filename: image.filename,
                  contentType: image.contentType,
                  content: image.content,
                  contentDisposition: "inline" as const,
                })),
              }
            : {}),
        });
        return;
      }
      const [row] = await opts.db
        .insert(mailOutbox)
        .values({
          to: mail.to,
          subject: mail.subject,
          text: mail.text,
          html: mail.html ?? null,
          userId: mail.userId ?? null,
        })
        .returning({ id: mailOutbox.id });
      opts.log.info({ outboxId: row?.id }, "mail kept in the development outbox (SMTP_URL not set)");
    },
  };
}
