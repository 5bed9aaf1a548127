import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import { DomainError } from '../core/errors.js';
import type { Db } from '../db/connect.js';
import { centreMembers, centres, users } from '../db/schema.js';
import type { Tx } from '../db/write.js';

export type CentreRole = 'owner' | 'staff';
export type UserRole = 'admin' | CentreRole;

export interface Membership {
  centreId: string;
  centreName: string;
  centreSlug: string;
  role: CentreRole;
}

export interface User {
  id: string;
  email: string;
  admin: boolean;
  disabled: boolean;
  memberships: Membership[];
}

const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$/;

/** An email as accounts know it (trimmed, lower-cased), or undefined when it cannot be one. */
export function normaliseEmail(input: unknown): string | undefined {
  if (typeof input !== 'string') return undefined;
  const email = input.trim().toLowerCase();
  return email.length <= 254 && EMAIL.test(email) ? email : undefined;
}

/** The user with this id and their centres, whatever their state. */
export async function userById(db: Db | Tx, id: string): Promise<User | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.email,
    admin: row.admin,
    disabled: row.disabledAt !== null,
    memberships: await membershipsOf(db, [row.id]).then((m) => m.get(row.id) ?? []),
  };
}

async function membershipsOf(db: Db | Tx, userIds: string[]): Promise<Map<string, Membership[]>> {
  const out = new Map<string, Membership[]>();
  if (userIds.length === 0) return out;
  const rows = await db
    .select({
      userId: centreMembers.userId,
      centreId: centreMembers.centreId,
      role: centreMembers.role,
      centreName: centres.name,
      centreSlug: centres.slug,
    })
    .from(centreMembers)
    .innerJoin(centres, eq(centres.id, centreMembers.centreId))
    .where(inArray(centreMembers.userId, userIds))
    .orderBy(asc(centres.name));
  for (const { userId, ...m } of rows) {
    const list = out.get(userId) ?? [];
    list.push({ ...m, role: m.role as CentreRole });
    out.set(userId, list);
  }
  return out;
}

/** The user of this email, made on first sign-in: any email may sign in (accounts/sign-in.ts). */
export async function userIdForEmail(tx: Tx, email: string): Promise<string> {
  const [made] = await tx
    .insert(users)
    .values({ email })
    .onConflictDoNothing({ target: users.email })
    .returning({ id: users.id });
  if (made) return made.id;
  const [found] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
  if (!found) throw new Error(`user ${email} neither made nor found`);
  return found.id;
}

/**
 * Gives an email a role, making its user if needed: `admin` (platform operator), or `owner` /
 * `staff` of one centre (which must exist). Giving a role again changes it; a disabled user stays
 * disabled.
 */
export async function grantRole(db: Db, email: string, role: UserRole, centreId?: string): Promise<User> {
  return db.transaction(async (tx) => {
    const id = await userIdForEmail(tx as Tx, email);
    if (role === 'admin') {
      await tx.update(users).set({ admin: true, updatedAt: sql`now()` }).where(eq(users.id, id));
    } else {
      if (!centreId) throw new DomainError(400, 'centre_required', `the role ${role} belongs to a centre: name it`);
      await tx
        .insert(centreMembers)
        .values({ userId: id, centreId, role })
        .onConflictDoUpdate({ target: [centreMembers.userId, centreMembers.centreId], set: { role } });
    }
    return (await userById(tx as Tx, id)) as User;
  });
}

/** Every user with their centres, by email. */
export async function listUsers(db: Db): Promise<User[]> {
  const rows = await db.select().from(users).orderBy(asc(users.email));
  const memberships = await membershipsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    admin: r.admin,
    disabled: r.disabledAt !== null,
    memberships: memberships.get(r.id) ?? [],
  }));
}

/**
 * Disables a user: their sessions stop working on every instance at the next request (sessions are
 * read with their user), and they cannot sign in again until enabled. False if no such user.
 */
export async function disableUser(db: Db, email: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ disabledAt: now, updatedAt: now })
    .where(and(eq(users.email, email), isNull(users.disabledAt)))
    .returning({ id: users.id });
  if (rows.length > 0) return true;
  const [exists] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return exists !== undefined;
}
