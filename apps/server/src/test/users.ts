import type { App } from "../app.ts";
import type { Database } from "../db/client.ts";
import { users } from "../db/schema.ts";
import { randomToken } from "../lib/crypto.ts";
import { mintCsrfToken } from "../lib/csrf.ts";
import { createSession } from "../lib/sessions.ts";
import { TEST_SECRET, TestClient } from "./harness.ts";

export type TestUser = {
  userId: string;
  email: string;
  sessionId: string;
  /** A browser-like client signed in as this user (session cookie and a session-bound CSRF token). */
  client: (app: App) => TestClient;
};

/**
 * Inserts a user row directly and opens a session for it, without going through the auth routes, so
 * any module's tests can have a signed-in user.
 */
export async function createTestUser(
  database: Database,
  overrides: Partial<typeof users.$inferInsert> = {},
): Promise<TestUser> {
  const suffix = randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x");
  const [row] = await database.db
    .insert(users)
    .values({ email: `user-${suffix}@example.test`, username: `user-${suffix}`, ...overrides })
    .returning({ id: users.id, email: users.email });
  if (!row) throw new Error("user insert returned no row");
  const sessionId = await createSession(database.db, row.id, { idleDays: 30, maxDays: 90 }, {});
  const csrf = mintCsrfToken(TEST_SECRET, sessionId);
  return {
    userId: row.id,
    email: row.email,
    sessionId,
    client: (app) => {
      const client = new TestClient(app);
      client.cookies.set("tonussessionid", sessionId);
      client.cookies.set("csrftoken", csrf);
      return client;
    },
  };
}
