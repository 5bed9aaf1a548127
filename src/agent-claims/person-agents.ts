import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import { isUrlClientId } from '../auth/cimd/client-id-url.js';
import type { Db } from '../db/connect.js';
import { agentClaims, oauthClients } from '../db/schema.js';
import { type AgentScope, scopesOf } from './scopes.js';

export interface PersonAgent {
  claimId: string;
  clientName: string;
  /** A client known by its metadata document: the host serving it (verified, unlike the name). */
  clientHost: string | undefined;
  scopes: AgentScope[];
  since: Date;
}

/** The agents a person lets act for them now, the latest first. */
export async function agentsOfPerson(db: Db, userId: string): Promise<PersonAgent[]> {
  const rows = await db
    .select({
      claimId: agentClaims.id,
      clientId: agentClaims.clientId,
      // A URL client (metadata document) has no row: the name its document gave at the approval.
      clientName: sql<string>`coalesce(${oauthClients.clientName}, ${agentClaims.clientName}, ${agentClaims.clientId})`,
      grantedScopes: agentClaims.grantedScopes,
      decidedAt: agentClaims.decidedAt,
      createdAt: agentClaims.createdAt,
    })
    .from(agentClaims)
    .leftJoin(oauthClients, eq(oauthClients.clientId, agentClaims.clientId))
    .where(and(eq(agentClaims.userId, userId), eq(agentClaims.status, 'approved'), isNull(agentClaims.revokedAt)))
    .orderBy(desc(agentClaims.decidedAt));
  return rows.map((row) => ({
    claimId: row.claimId,
    clientName: row.clientName,
    clientHost: isUrlClientId(row.clientId) ? new URL(row.clientId).host : undefined,
    scopes: scopesOf(row.grantedScopes),
    since: row.decidedAt ?? row.createdAt,
  }));
}

/**
 * The person withdraws an agent's authorisation: true when it was in force and theirs. Its tokens
 * are refused from the next request on (claimInForce), on every instance.
 */
export async function revokeClaim(db: Db, claimId: string, userId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(agentClaims)
    .set({ revokedAt: now })
    .where(
      and(
        eq(agentClaims.id, claimId),
        eq(agentClaims.userId, userId),
        eq(agentClaims.status, 'approved'),
        isNull(agentClaims.revokedAt),
      ),
    )
    .returning({ id: agentClaims.id });
  return rows.length > 0;
}
