import PostalMime from "postal-mime";
import type { ReceivedMail } from "./smtp.ts";

export type ParsedMail = {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Header values by lower-case name (the first of a repeated header). */
  header: (name: string) => string | undefined;
  images: { contentId: string; mimeType: string; disposition: string | null; bytes: Buffer }[];
};

/** Parses a message the test SMTP server received (MIME, encodings, inline parts) as a mail client would. */
export async function parseMail(mail: ReceivedMail): Promise<ParsedMail> {
  const email = await PostalMime.parse(mail.raw);
  return {
    to: mail.to,
    subject: email.subject ?? "",
    text: email.text ?? "",
    html: email.html ?? "",
    header: (name) => email.headers.find((h) => h.key === name.toLowerCase())?.value,
    images: email.attachments.map((a) => ({
      contentId: (a.contentId ?? "").replace(/^<|>$/g, ""),
      mimeType: a.mimeType,
      disposition: a.disposition,
      bytes: Buffer.from(a.content as ArrayBuffer),
    })),
  };
}
