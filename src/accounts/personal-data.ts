import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { signInLinks, userSessions, users } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { userById } from './users.js';

/** What the accounts hold of one email, as its data export gives it. */
export interface AccountData {
  /** The user made at the first sign-in; null if the email never signed in (or was deleted). */
  user: {
    email: string;
    createdAt: string;
    admin: boolean;
    disabled: boolean;
    centres: { name: string; role: string }[];
  } | null;
  /** Signed-in sessions (only their times: the cookie's secret is not stored). */
  sessions: { openedAt: string; lastSeenAt: string }[];
  /** Sign-in links asked for this email (only their times: the link's secret is not stored). */
  signInLinks: { askedAt: string; expiresAt: string; usedAt: string | null }[];
}

/** Everything the accounts hold of `email` (lower-cased, as accounts store it). */
export async function accountDataOf(db: Db, email: string): Promise<AccountData> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  const user = row ? await userById(db, row.id) : undefined;
  const sessions = row
    ? await db.select().from(userSessions).where(eq(userSessions.userId, row.id)).orderBy(asc(userSessions.createdAt))
    : [];
  const links = await db
    .select()
    .from(signInLinks)
    .where(eq(signInLinks.email, email))
    .orderBy(asc(signInLinks.createdAt));
  return {
    user:
      row && user
        ? {
            email: row.email,
            createdAt: row.createdAt.toISOString(),
            admin: row.admin,
            disabled: row.disabledAt !== null,
            centres: user.memberships.map((m) => ({ name: m.centreName, role: m.role })),
          }
        : null,
    sessions: sessions.map((s) => ({ openedAt: s.createdAt.toISOString(), lastSeenAt: s.seenAt.toISOString() })),
    signInLinks: links.map((l) => ({
      askedAt: l.createdAt.toISOString(),
      expiresAt: l.expiresAt.toISOString(),
      usedAt: l.usedAt?.toISOString() ?? null,
    })),
  };
}

/**
 * A person's erasure of their account: the sign-in links asked for `email` and every session of its
 * user are deleted (signed out everywhere), and the user itself unless it is a centre's member or an
 * operator — their account is the centre's or the service's tool, kept for it (their roles go with
 * the centre's team page or the operators' command). Erasing again deletes nothing more.
 */
export async function eraseAccountOf(
  tx: Tx,
  email: string,
): Promise<{ userDeleted: boolean; keptForRole: boolean; sessions: number; links: number }> {
  const links = await tx
    .delete(signInLinks)
    .where(eq(signInLinks.email, email))
    .returning({ h: signInLinks.tokenHash });
  const [row] = await tx.select().from(users).where(eq(users.email, email)).for('update');
  if (!row) return { userDeleted: false, keptForRole: false, sessions: 0, links: links.length };
  const sessions = await tx
    .delete(userSessions)
    .where(eq(userSessions.userId, row.id))
    .returning({ h: userSessions.idHash });
  const user = await userById(tx, row.id);
  const keptForRole = row.admin || (user?.memberships.length ?? 0) > 0;
  // Its forms' one-time ids go with it (on delete cascade).
  if (!keptForRole) await tx.delete(users).where(eq(users.id, row.id));
  return { userDeleted: !keptForRole, keptForRole, sessions: sessions.length, links: links.length };
}
