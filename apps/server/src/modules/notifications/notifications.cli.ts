import fs from "node:fs";
import { LocaleSchema } from "@tonus/contract";
import type { Db } from "../../db/client.ts";
import { countNewsSubscribers, insertNews, type NewsContent } from "./notifications.repo.ts";

export const SEND_NEWS_USAGE = `send-news --en FILE [--ru FILE]
                          queue a product-news e-mail for everyone who opted in, each in their newsletter
                          language; a FILE is Markdown whose first line is "# Subject". People whose
                          language has no file get nothing. The running server sends it within a minute.`;

const MAX_FILE_BYTES = 200 * 1024;
const MAX_SUBJECT = 200;

export class NewsFileError extends Error {}

/** A news file: `# Subject` on the first line, Markdown after it. */
export function parseNewsFile(text: string, name: string): NewsContent[string] {
  const lines = text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  const first = lines.findIndex((l) => l.trim() !== "");
  const heading = /^#\s+(.+?)\s*#*\s*$/.exec(lines[first] ?? "");
  if (!heading?.[1]) throw new NewsFileError(`${name}: the first line must be the subject, as "# Subject"`);
  const subject = heading[1].trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a subject with control characters would forge headers
  if (subject.length > MAX_SUBJECT || /[\u0000-\u001f]/.test(subject))
    throw new NewsFileError(`${name}: the subject must be one line of at most ${MAX_SUBJECT} characters`);
  const markdown = lines
    .slice(first + 1)
    .join("\n")
    .trim();
  if (!markdown) throw new NewsFileError(`${name}: there is no text after the subject`);
  return { subject, markdown };
}

/** `send-news`: reads the files, queues the issue, and says how many people will get it. */
export async function sendNewsCommand(
  db: Db,
  args: string[],
): Promise<{ ok: boolean; message: string; usage?: boolean }> {
  const files = new Map<string, string>();
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i] ?? "";
    const locale = LocaleSchema.safeParse(flag.replace(/^--/, ""));
    const file = args[i + 1];
    if (!flag.startsWith("--") || !locale.success || !file || files.has(locale.data))
      return { ok: false, usage: true, message: "send-news needs --en FILE and/or --ru FILE" };
    files.set(locale.data, file);
  }
  if (files.size === 0)
    return { ok: false, usage: true, message: "send-news needs --en FILE and/or --ru FILE" };
  const content: NewsContent = {};
  try {
    for (const [locale, file] of files) {
      const size = fs.statSync(file).size;
      if (size > MAX_FILE_BYTES) throw new NewsFileError(`${file}: larger than ${MAX_FILE_BYTES / 1024} KB`);
      content[locale] = parseNewsFile(fs.readFileSync(file, "utf8"), file);
    }
  } catch (error) {
    if (error instanceof NewsFileError) return { ok: false, message: error.message };
    const code = (error as { code?: string }).code;
    if (code === "ENOENT" || code === "EISDIR" || code === "EACCES")
      return { ok: false, message: `cannot read ${(error as { path?: string }).path ?? "the file"}` };
    throw error;
  }
  const id = await insertNews(db, content);
  const subscribers = await countNewsSubscribers(db);
  const lines = [`Queued news issue ${id}:`];
  for (const [locale, c] of Object.entries(content))
    lines.push(`  ${locale}: "${c.subject}" to ${subscribers[locale] ?? 0} subscriber(s)`);
  for (const [locale, n] of Object.entries(subscribers))
    if (!(locale in content) && n > 0) lines.push(`  ${locale}: no file, so ${n} subscriber(s) get nothing`);
  lines.push("The server sends it within a minute of running (each person once).");
  return { ok: true, message: lines.join("\n") };
}
