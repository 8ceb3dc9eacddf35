import { type NotificationList, NotificationListSchema } from "@tonus/contract";
import { hmac, safeEqual } from "../../lib/crypto.ts";

/**
 * Unsubscribe tokens: `<list>.<user id>.<HMAC-SHA256 of both with the server secret>`. One per person and
 * list, the same in every mail of that list, unguessable without the secret (256-bit MAC), and valid for
 * nothing but leaving that one list: it never signs anyone in. Changing SECRET_KEY voids old links.
 */
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_TOKEN_LENGTH = 200;

const macOf = (secretKey: string, list: NotificationList, userId: string) =>
  hmac(secretKey, `unsubscribe|v1|${list}|${userId}`);

export function signUnsubscribeToken(secretKey: string, userId: string, list: NotificationList): string {
  return `${list}.${userId}.${macOf(secretKey, list, userId)}`;
}

/** The person and list a token names, or null for anything not signed by this server. */
export function verifyUnsubscribeToken(
  secretKey: string,
  token: string,
): { userId: string; list: NotificationList } | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const [rawList, userId, mac, ...rest] = token.split(".");
  const list = NotificationListSchema.safeParse(rawList);
  if (!list.success || !userId || !UUID_RE.test(userId) || !mac || rest.length > 0) return null;
  if (!safeEqual(mac, macOf(secretKey, list.data, userId))) return null;
  return { userId, list: list.data };
}
