import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import { newSecret, secretHash } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { signInLinks } from '../db/schema.js';
import type { Tx } from '../db/write.js';

/** A sign-in link works this long after it was asked for. */
export const LINK_LIFETIME_MS = 15 * 60_000;

/** A link's secret: 256 random bits, 43 characters of base64url. */
export const SIGN_IN_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** Makes a link's secret for `email`, in the caller's transaction; only its hash is stored. */
export async function createSignInLink(tx: Tx, email: string, now: Date): Promise<string> {
  const token = newSecret(32);
  await tx.insert(signInLinks).values({
    tokenHash: secretHash(token),
    email,
    expiresAt: new Date(now.getTime() + LINK_LIFETIME_MS),
    createdAt: now,
  });
  return token;
}

/**
 * Spends a link: the email it was made for, if it is unspent and unexpired, and never again (one
 * conditional UPDATE, so two instances given the same link at once cannot both spend it).
 */
export async function spendSignInLink(tx: Tx, token: string, now: Date): Promise<string | undefined> {
  const [row] = await tx
    .update(signInLinks)
    .set({ usedAt: now })
    .where(
      and(eq(signInLinks.tokenHash, secretHash(token)), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, now)),
    )
    .returning({ email: signInLinks.email });
  return row?.email;
}

/** Whether a link may still be spent (the page before the button says so). */
export async function signInLinkUsable(db: Db, token: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ email: signInLinks.email })
    .from(signInLinks)
    .where(
      and(eq(signInLinks.tokenHash, secretHash(token)), isNull(signInLinks.usedAt), gt(signInLinks.expiresAt, now)),
    );
  return row !== undefined;
}

/** Forgets links expired for a day (spent or not); what is left says nothing once they have gone. */
export async function pruneSignInLinks(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(signInLinks)
    .where(lt(signInLinks.expiresAt, new Date(now.getTime() - 86_400_000)))
    .returning({ h: signInLinks.tokenHash });
  return rows.length;
}
