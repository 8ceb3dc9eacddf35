// Starts what the e2e suite talks to: a real SMTP server that keeps the messages it receives (readable
// over a small loopback HTTP API), and Tonus on a fresh data directory pointed at that SMTP server.
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { E2E_MAIL_API_PORT, E2E_MAIL_PORT, E2E_PORT } from "./ports.ts";

type Received = { to: string[]; raw: string; at: number };
const inbox: Received[] = [];

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ["STARTTLS"],
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase());
      inbox.push({ to, raw: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      callback();
    });
  },
});
smtp.listen(E2E_MAIL_PORT, "127.0.0.1");

http
  .createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const to = url.searchParams.get("to")?.toLowerCase();
    const messages = inbox.filter((m) => !to || m.to.includes(to));
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(messages));
  })
  .listen(E2E_MAIL_API_PORT, "127.0.0.1");

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "tonus-e2e-"));
// The academy: the real courses plus a small fixture course (PRO, missing-language and pacer cases).
const academyDir = path.join(dataDir, "academy");
for (const source of ["content/academy", "e2e/fixtures/academy"]) {
  fs.cpSync(source, academyDir, { recursive: true, filter: (from) => !from.endsWith("README.md") });
}
const server = spawn(process.execPath, ["apps/server/src/main.ts"], {
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    ...process.env,
    NODE_ENV: "test",
    PORT: String(E2E_PORT),
    HOST: "127.0.0.1",
    PUBLIC_URL: `http://127.0.0.1:${E2E_PORT}`,
    DATA_DIR: dataDir,
    ACADEMY_CONTENT_DIR: academyDir,
    SMTP_URL: `smtp://127.0.0.1:${E2E_MAIL_PORT}`,
    BILLING_MODE: "sandbox",
    LOG_LEVEL: "warn",
    RATE_LIMIT_SIGNIN_PER_HOUR: "1000",
  },
});

function stop(): void {
  server.kill("SIGTERM");
  smtp.close();
  setTimeout(() => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }, 1500).unref();
}
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
server.on("exit", (code) => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.exit(code ?? 0);
});
