import { eq, lt, or } from 'drizzle-orm';
import { newSecret, secretHash } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { userSessions } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { type User, userById } from './users.js';

/** A session ends after this long without a request… */
export const IDLE_MS = 12 * 3_600_000;
/** …and this long after sign-in, whatever happens. */
export const ABSOLUTE_MS = 7 * 86_400_000;
/** `seen_at` is written at most this often: a page's every request need not write. */
const TOUCH_MS = 60_000;

/** A session's id: 256 random bits, 43 characters of base64url. */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** Opens a session for a user, in the caller's transaction; the id goes in the cookie, its hash in the table. */
export async function openSession(tx: Tx, userId: string, now: Date): Promise<string> {
  const id = newSecret(32);
  await tx.insert(userSessions).values({ idHash: secretHash(id), userId, createdAt: now, seenAt: now });
  return id;
}

/**
 * The signed-in user of a session id, or undefined when the session is unknown, ended, idle past
 * IDLE_MS, older than ABSOLUTE_MS, or its user disabled. Read from the database on every request,
 * so that what any instance did (sign out, disable) holds on all of them at once.
 */
export async function sessionUser(db: Db, id: string, now: Date): Promise<User | undefined> {
  const idHash = secretHash(id);
  const [session] = await db.select().from(userSessions).where(eq(userSessions.idHash, idHash));
  if (!session) return undefined;
  const t = now.getTime();
  if (t - session.seenAt.getTime() > IDLE_MS || t - session.createdAt.getTime() > ABSOLUTE_MS) {
    await db.delete(userSessions).where(eq(userSessions.idHash, idHash));
    return undefined;
  }
  const user = await userById(db, session.userId);
  if (!user || user.disabled) return undefined;
  if (t - session.seenAt.getTime() > TOUCH_MS)
    await db.update(userSessions).set({ seenAt: now }).where(eq(userSessions.idHash, idHash));
  return user;
}

/** Ends one session (sign out). */
export async function closeSession(db: Db, id: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.idHash, secretHash(id)));
}

/** Ends every session of a user (sign out everywhere). */
export async function closeUserSessions(db: Db | Tx, userId: string): Promise<void> {
  await db.delete(userSessions).where(eq(userSessions.userId, userId));
}

/** Forgets sessions that can no longer be used. */
export async function pruneSessions(db: Db, now: Date): Promise<number> {
  const t = now.getTime();
  const rows = await db
    .delete(userSessions)
    .where(or(lt(userSessions.seenAt, new Date(t - IDLE_MS)), lt(userSessions.createdAt, new Date(t - ABSOLUTE_MS))))
    .returning({ h: userSessions.idHash });
  return rows.length;
}
