import { lt } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { clientAssertionJtis } from '../db/schema.js';

/**
 * Records that a client assertion's jti was used; false when it already was and has not expired:
 * a replay. One statement, so that two instances receiving the same assertion at once cannot
 * both accept it (the primary key decides). A jti whose earlier use has expired may be used again.
 */
export async function spendJti(db: Db, clientId: string, jti: string, expiresAt: Date, now: Date): Promise<boolean> {
  const rows = await db
    .insert(clientAssertionJtis)
    .values({ clientId, jti, expiresAt })
    .onConflictDoUpdate({
      target: [clientAssertionJtis.clientId, clientAssertionJtis.jti],
      set: { expiresAt },
      setWhere: lt(clientAssertionJtis.expiresAt, now),
    })
    .returning({ jti: clientAssertionJtis.jti });
  return rows.length === 1;
}

/** Forgets the jtis whose assertions have expired (they can no longer be replayed): how many. */
export async function pruneJtis(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(clientAssertionJtis)
    .where(lt(clientAssertionJtis.expiresAt, now))
    .returning({ jti: clientAssertionJtis.jti });
  return rows.length;
}
