import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { socialIdentities, users } from "../../db/schema.ts";
import { randomToken } from "../../lib/crypto.ts";

/**
 * The account for a provider's subject: the linked one; else the account with the same verified e-mail
 * (then linked); else a new account. `created` tells the caller which happened.
 */
export async function findOrCreateSocialUser(
  db: Db,
  identity: { provider: string; subject: string; verifiedEmail: string | null },
): Promise<{ userId: string; created: boolean } | null> {
  return db.transaction(async (tx) => {
    const [linked] = await tx
      .select({ userId: socialIdentities.userId })
      .from(socialIdentities)
      .where(
        and(eq(socialIdentities.provider, identity.provider), eq(socialIdentities.subject, identity.subject)),
      );
    if (linked) return { userId: linked.userId, created: false };
    if (!identity.verifiedEmail) return null;
    const email = identity.verifiedEmail;
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    let userId = existing?.id;
    if (!userId) {
      const [taken] = await tx.select({ id: users.id }).from(users).where(eq(users.username, email));
      const [row] = await tx
        .insert(users)
        .values({ email, username: taken ? `${email}-${randomToken(4)}` : email })
        .returning({ id: users.id });
      userId = row?.id;
    }
    if (!userId) return null;
    await tx
      .insert(socialIdentities)
      .values({ provider: identity.provider, subject: identity.subject, userId })
      .onConflictDoNothing();
    return { userId, created: !existing };
  });
}
