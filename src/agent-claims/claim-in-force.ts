import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { agentClaims } from '../db/schema.js';
import { type AgentScope, scopesOf } from './scopes.js';

export interface ClaimInForce {
  claimId: string;
  /** The person's pairwise identifier for this client (the token's `sub`). */
  subject: string;
  userId: string;
  scopes: AgentScope[];
}

const inForce = and(eq(agentClaims.status, 'approved'), isNull(agentClaims.revokedAt));

/** The claim a client holds now, if a person approved one and has not revoked it (token endpoint). */
export async function claimOfClient(db: Db, clientId: string): Promise<ClaimInForce | undefined> {
  const [row] = await db
    .select({
      claimId: agentClaims.id,
      subject: agentClaims.subject,
      userId: agentClaims.userId,
      grantedScopes: agentClaims.grantedScopes,
    })
    .from(agentClaims)
    // The claim flow's own (an agent host's authorizations are found by their code or refresh token).
    .where(and(eq(agentClaims.clientId, clientId), inForce, isNull(agentClaims.via)));
  if (!row?.subject || !row.userId) return undefined;
  return { claimId: row.claimId, subject: row.subject, userId: row.userId, scopes: scopesOf(row.grantedScopes) };
}

/**
 * The claim a presented token carries, if it is still in force for that client: one primary-key
 * probe, made only for tokens that carry a claim, on every request, so that a revocation made on
 * any instance holds at the next request everywhere.
 */
export async function claimInForce(db: Db, claimId: string, clientId: string): Promise<ClaimInForce | undefined> {
  const [row] = await db
    .select({
      claimId: agentClaims.id,
      subject: agentClaims.subject,
      userId: agentClaims.userId,
      grantedScopes: agentClaims.grantedScopes,
    })
    .from(agentClaims)
    .where(and(eq(agentClaims.id, claimId), eq(agentClaims.clientId, clientId), inForce));
  if (!row?.subject || !row.userId) return undefined;
  return { claimId: row.claimId, subject: row.subject, userId: row.userId, scopes: scopesOf(row.grantedScopes) };
}
