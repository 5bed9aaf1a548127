import { randomBytes } from 'node:crypto';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { hashSecret, secretMatches } from '../auth/secrets.js';
import type { Db } from '../db/connect.js';
import { apiKeys } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import type { Actor } from '../history/actor.js';
import { recordChanges } from '../history/record.js';

export type ApiKeyRole = 'admin' | 'partner';

/** Who a valid key belongs to: what the admin routes authorise on, and what write logs name. */
export interface ApiKeyIdentity {
  readonly id: string;
  readonly name: string;
  readonly role: ApiKeyRole;
  /** The one centre a partner key may write; null for an operator key. */
  readonly centreId: string | null;
}

export interface ApiKeyListing extends ApiKeyIdentity {
  createdAt: Date;
  revokedAt: Date | null;
}

/*
 * A key reads `sk_<id>_<secret>`: `sk_` says what it is (and keeps it apart from access tokens,
 * which are JWTs), the id finds the row, and the secret (256 random bits) is checked against its
 * stored SHA-256 in constant time. Only the hash is kept.
 */
const KEY = /^sk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export function parseApiKey(presented: string): { id: string; secret: string } | undefined {
  const m = KEY.exec(presented);
  return m ? { id: m[1] as string, secret: m[2] as string } : undefined;
}

/**
 * Makes a key. With an actor, a centre's key is written in that centre's history in the same
 * transaction (entity `api_key`, field `created`: its name and role, never its secret).
 */
export async function createApiKey(
  db: Db,
  input: { name: string; role: ApiKeyRole; centreId: string | null },
  actor?: Actor,
): Promise<{ key: string; identity: ApiKeyIdentity }> {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  await db.transaction(async (t) => {
    const tx = t as Tx;
    await tx.insert(apiKeys).values({
      id,
      name: input.name,
      role: input.role,
      centreId: input.centreId,
      secretHash: hashSecret(secret),
    });
    if (actor && input.centreId !== null)
      await recordChanges(tx, actor, [
        {
          centreId: input.centreId,
          entity: 'api_key',
          entityId: id,
          field: 'created',
          oldValue: null,
          newValue: JSON.stringify({ name: input.name, role: input.role }),
        },
      ]);
  });
  return { key: `sk_${id}_${secret}`, identity: { id, ...input } };
}

/** The identity of a presented key, or undefined when it is unknown, wrong or revoked. */
export async function verifyApiKey(db: Db, presented: string): Promise<ApiKeyIdentity | undefined> {
  const parsed = parseApiKey(presented);
  const [row] = parsed
    ? await db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.id, parsed.id), isNull(apiKeys.revokedAt)))
        .prepare('api_key_by_id') // every admin request: kept planned (db/prepared.ts)
        .execute()
    : [];
  // Compared even when no row matched, so that an unknown id and a wrong secret take the same time.
  if (!secretMatches(parsed?.secret ?? presented, row?.secretHash) || !row) return undefined;
  return { id: row.id, name: row.name, role: row.role as ApiKeyRole, centreId: row.centreId };
}

/** Every key, newest first; or only one centre's partner keys. */
export async function listApiKeys(db: Db, scope: { centreId?: string } = {}): Promise<ApiKeyListing[]> {
  const rows = await db
    .select()
    .from(apiKeys)
    .where(scope.centreId === undefined ? undefined : eq(apiKeys.centreId, scope.centreId))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    role: r.role as ApiKeyRole,
    centreId: r.centreId,
    createdAt: r.createdAt,
    revokedAt: r.revokedAt,
  }));
}

/**
 * Revokes a key at once, for every instance; with a centre, only that centre's key. False when no
 * such key is active. With an actor, a centre's key's revocation is written in that centre's
 * history in the same transaction (entity `api_key`, field `revoked`).
 */
export async function revokeApiKey(
  db: Db,
  id: string,
  now: Date,
  scope: { centreId?: string } = {},
  actor?: Actor,
): Promise<boolean> {
  return db.transaction(async (t) => {
    const tx = t as Tx;
    const rows = await tx
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(
        and(
          eq(apiKeys.id, id),
          isNull(apiKeys.revokedAt),
          scope.centreId === undefined ? undefined : eq(apiKeys.centreId, scope.centreId),
        ),
      )
      .returning({ id: apiKeys.id, centreId: apiKeys.centreId });
    const [row] = rows;
    if (actor && row?.centreId)
      await recordChanges(tx, actor, [
        {
          centreId: row.centreId,
          entity: 'api_key',
          entityId: row.id,
          field: 'revoked',
          oldValue: 'no',
          newValue: 'yes',
        },
      ]);
    return rows.length > 0;
  });
}
