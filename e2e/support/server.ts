// Starts what the e2e suite talks to: a real SMTP server that keeps the messages it receives (readable
// over a small loopback HTTP API that also stands in for the help centre), and Tonus on a fresh data
// directory pointed at that SMTP server.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { SMTPServer } from "smtp-server";
import { startStandin } from "../../apps/server/src/modules/connectors/standin/standin.ts";
import { E2E_COUPON } from "./billing.ts";
import {
  E2E_HELP_URL,
  E2E_INTERCOM_SECRET,
  E2E_MAIL_API_PORT,
  E2E_MAIL_PORT,
  E2E_PORT,
  E2E_PROVIDER_PORT,
} from "./ports.ts";

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

/**
 * A stand-in for Oura's OAuth server and API (answers written from Oura's documented formats; it approves
 * at once) that the server is configured with, for e2e/specs/cloud-connectors.spec.ts.
 */
const OURA_CLIENT = { clientId: "e2e-oura-client", clientSecret: "e2e-oura-client-secret" };
const ouraStandin = await startStandin({
  provider: "oura",
  ...OURA_CLIENT,
  redirectUri: `http://127.0.0.1:${E2E_PORT}/dashboard_api/v1/connectors/oura/callback/`,
  port: E2E_PROVIDER_PORT,
});

/** The IFTTT stand-in of e2e/specs/oauth.spec.ts: its redirect URI and the client secret the CLI printed. */
const IFTTT_REDIRECT = `http://127.0.0.1:${E2E_MAIL_API_PORT}/ifttt/callback`;
let iftttSecret = "";

http
  .createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/ifttt/callback") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end('<!doctype html><html lang="en"><title>IFTTT stand-in</title><h1>IFTTT stand-in</h1></html>');
      return;
    }
    if (url.pathname === "/ifttt/client") {
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({ client_id: "ifttt", client_secret: iftttSecret, redirect_uri: IFTTT_REDIRECT }),
      );
      return;
    }
    if (url.pathname === "/connectors/oura/refuse-grants" && req.method === "POST") {
      // The person withdrew Tonus's access at "Oura" (on=1), or gave it back (on=0): the tokens issued
      // so far answer 401 and refreshing them is refused. Only cloud-connectors.spec.ts, run serially, uses it.
      const on = url.searchParams.get("on") === "1";
      if (on) ouraStandin.faults.expireAccessTokens();
      ouraStandin.faults.refuseRefresh = on;
      res.end();
      return;
    }
    if (url.pathname === "/connectors/oura/revocations") {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ count: ouraStandin.revocations.length }));
      return;
    }
    if (url.pathname === "/help") {
      // A stand-in for the operator's help centre, so no test leaves the machine.
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(
        '<!doctype html><html lang="en"><title>Help centre stand-in</title><h1>Help centre stand-in</h1></html>',
      );
      return;
    }
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
// The operator registers the IFTTT client before the server takes the data directory.
const registration = spawnSync(
  process.execPath,
  ["apps/server/src/cli.ts", "register-oauth-client", "ifttt", "IFTTT", IFTTT_REDIRECT],
  { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, encoding: "utf8" },
);
iftttSecret = /client_secret: (\S+)/.exec(registration.stdout)?.[1] ?? "";
if (!iftttSecret) process.stderr.write(`register-oauth-client failed: ${registration.stderr}\n`);
// The promo code of e2e/specs/billing.spec.ts: 20 % off the monthly plan, made with the operator CLI.
const coupon = spawnSync(
  process.execPath,
  ["apps/server/src/cli.ts", "coupon-add", E2E_COUPON, "20", "--product", "monthly-subscription"],
  { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "silent" }, encoding: "utf8" },
);
if (coupon.status !== 0) process.stderr.write(`coupon-add failed: ${coupon.stderr}\n`);
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
    HELP_CENTER_URL: E2E_HELP_URL,
    BILLING_MODE: "sandbox",
    LOG_LEVEL: "warn",
    RATE_LIMIT_SIGNIN_PER_HOUR: "1000",
    IFTTT_SERVICE_KEY: "e2e-ifttt-service-key",
    // The chat's identity-verification secret (no INTERCOM_KEY: the chat stays off unless a spec turns it
    // on in the browser, see specs/chat.spec.ts).
    INTERCOM_SECRET: E2E_INTERCOM_SECRET,
    OURA_CLIENT_ID: OURA_CLIENT.clientId,
    OURA_CLIENT_SECRET: OURA_CLIENT.clientSecret,
    OURA_BASE_URL: ouraStandin.url,
  },
});

function stop(): void {
  server.kill("SIGTERM");
  smtp.close();
  void ouraStandin.close();
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
