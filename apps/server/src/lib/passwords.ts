import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { hash, parseOptions, verify } from "@node-rs/argon2";
import { AppError } from "./app-error.ts";
import { BoundedQueue, QueueFullError } from "./bounded-queue.ts";

/** OWASP / ASVS appendix C: argon2id, 19 MiB, 2 passes, 1 lane. */
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
const ARGON2ID = 2;

/** Passwords are compared as typed but in one Unicode form, so a composed and a decomposed "й" match. */
export function normalizePassword(password: string): string {
  return password.normalize("NFC");
}

/**
 * Every hash and verification runs here: one per core at a time, a short waiting line, and a 429 with
 * Retry-After beyond it (RELIABILITY L4), so a flood of sign-ins leaves the rest of the app responsive.
 */
export const hashingQueue = new BoundedQueue(Math.max(1, availableParallelism()), 32);

async function throughQueue<T>(task: () => Promise<T>): Promise<T> {
  try {
    return await hashingQueue.run(task);
  } catch (error) {
    if (error instanceof QueueFullError) {
      throw new AppError("rate_limited", "Too many sign-in attempts right now, try again in a moment", {
        retryAfterS: 1,
      });
    }
    throw error;
  }
}

export function hashPassword(password: string): Promise<string> {
  return throughQueue(() => hash(normalizePassword(password), ARGON2_OPTIONS));
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  return throughQueue(async () => {
    try {
      return await verify(stored, normalizePassword(password));
    } catch {
      // A corrupt or foreign hash string never signs anyone in.
      return false;
    }
  });
}

/** True when `stored` is weaker than the current policy (another algorithm or smaller costs). */
export function needsRehash(stored: string): boolean {
  try {
    const o = parseOptions(stored);
    return (
      o.algorithm !== ARGON2ID ||
      o.memoryCost < ARGON2_OPTIONS.memoryCost ||
      o.timeCost < ARGON2_OPTIONS.timeCost ||
      o.parallelism !== ARGON2_OPTIONS.parallelism
    );
  } catch {
    return true;
  }
}

let dummyHash: Promise<string> | undefined;

/** Spends the same hashing time as a real check, so unknown accounts are not revealed by timing. */
export async function verifyDummyPassword(password: string): Promise<void> {
  // A refusal by the hashing queue must not be remembered as the dummy hash.
  dummyHash ??= hashPassword("dummy-password-for-timing-only").catch((error: unknown) => {
    dummyHash = undefined;
    throw error;
  });
  await verifyPassword(await dummyHash, password);
}

let commonPasswords: Set<string> | undefined;

/** ASVS 6.2.4: refuse passwords found on the shipped list of common passwords (case-insensitive). */
export function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(
    readFileSync(new URL("./common-passwords.txt", import.meta.url), "utf8")
      .split("\n")
      .map((l) => l.trim().toLowerCase())
      .filter((l) => l && !l.startsWith("#")),
  );
  return commonPasswords.has(normalizePassword(password).toLowerCase());
}
