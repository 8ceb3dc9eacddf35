import nodemailer from "nodemailer";
import type { Db } from "../db/client.ts";
import { mailOutbox } from "../db/schema.ts";
import type { Logger } from "./logger.ts";

export type Mail = { to: string; subject: string; text: string; html?: string; userId?: string | null };

export type Mailer = { send(mail: Mail): Promise<void> };

/**
 * Sends through SMTP when `SMTP_URL` is set. Without it (development, personal installs) the message
 * is kept in the `mail_outbox` table, viewable from the dev outbox page, and nothing leaves the machine.
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
