import { eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { agentClaims, oauthClients } from '../db/schema.js';
import { type ClaimState, claimState } from './claim-state.js';
import { type AgentScope, scopesOf } from './scopes.js';

export interface ClaimForPage {
  id: string;
  /** The name the client gave itself at registration: unverified. */
  clientName: string;
  requested: AgentScope[];
  state: ClaimState;
  /** Who decided it, once decided. */
  userId: string | null;
}

/** A claim as the person's page shows it. */
export async function claimForPage(db: Db, claimId: string, now: Date): Promise<ClaimForPage | undefined> {
  const [row] = await db
    .select({
      id: agentClaims.id,
      clientName: oauthClients.clientName,
      requestedScopes: agentClaims.requestedScopes,
      status: agentClaims.status,
      expiresAt: agentClaims.expiresAt,
      revokedAt: agentClaims.revokedAt,
      userId: agentClaims.userId,
    })
    .from(agentClaims)
    .innerJoin(oauthClients, eq(oauthClients.clientId, agentClaims.clientId))
    .where(eq(agentClaims.id, claimId));
  if (!row) return undefined;
  return {
    id: row.id,
    clientName: row.clientName,
    requested: scopesOf(row.requestedScopes),
    state: claimState(row, now),
    userId: row.userId,
  };
}
