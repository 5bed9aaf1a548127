import { and, eq, isNull, lte, or } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { agentClaims } from '../db/schema.js';
import { type ClaimState, claimState } from './claim-state.js';
import { CLAIM_POLL_INTERVAL_SECONDS } from './policy.js';
import { type AgentScope, scopesOf } from './scopes.js';

export type PolledClaim =
  | { kind: 'unknown' }
  /** Asked again sooner than the interval (by any instance). */
  | { kind: 'slow-down' }
  | { kind: 'state'; state: ClaimState; scopes: AgentScope[] };

/**
 * The client reads its claim's state. The poll's time is recorded by one conditional UPDATE, so
 * that polling faster than the interval is seen whichever instance each poll reaches.
 */
export async function pollClaim(db: Db, claimId: string, clientId: string, now: Date): Promise<PolledClaim> {
  const earliest = new Date(now.getTime() - CLAIM_POLL_INTERVAL_SECONDS * 1000);
  const [row] = await db
    .update(agentClaims)
    .set({ lastPolledAt: now })
    .where(
      and(
        eq(agentClaims.id, claimId),
        eq(agentClaims.clientId, clientId),
        or(isNull(agentClaims.lastPolledAt), lte(agentClaims.lastPolledAt, earliest)),
      ),
    )
    .returning({
      status: agentClaims.status,
      expiresAt: agentClaims.expiresAt,
      revokedAt: agentClaims.revokedAt,
      grantedScopes: agentClaims.grantedScopes,
    });
  if (row) return { kind: 'state', state: claimState(row, now), scopes: scopesOf(row.grantedScopes) };
  const [exists] = await db
    .select({ id: agentClaims.id })
    .from(agentClaims)
    .where(and(eq(agentClaims.id, claimId), eq(agentClaims.clientId, clientId)));
  return exists ? { kind: 'slow-down' } : { kind: 'unknown' };
}
