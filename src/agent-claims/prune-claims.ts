import { and, isNotNull, lt, ne, or } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { agentClaims } from '../db/schema.js';

/** A claim never approved (refused, or left to expire) is forgotten this long after its expiry. */
export const UNAPPROVED_CLAIM_KEPT_MS = 24 * 3_600_000;
/** A withdrawn claim is kept this long after the withdrawal, as the person's record of what it allowed. */
export const REVOKED_CLAIM_KEPT_MS = 30 * 24 * 3_600_000;

/** Forgets the claims that no longer do anything, once their time is up: how many. */
export async function pruneClaims(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(agentClaims)
    .where(
      or(
        and(
          ne(agentClaims.status, 'approved'),
          lt(agentClaims.expiresAt, new Date(now.getTime() - UNAPPROVED_CLAIM_KEPT_MS)),
        ),
        and(
          isNotNull(agentClaims.revokedAt),
          lt(agentClaims.revokedAt, new Date(now.getTime() - REVOKED_CLAIM_KEPT_MS)),
        ),
      ),
    )
    .returning({ id: agentClaims.id });
  return rows.length;
}
