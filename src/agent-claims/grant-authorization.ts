import { and, eq, isNull } from 'drizzle-orm';
import { newSecret } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { agentClaims } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { subjectFor } from './decide-claim.js';
import { type AgentScope, scopeString } from './scopes.js';

/**
 * The person approved an agent host's authorization request (issue 27, the browser flow): a claim
 * in force, made as the claim's approval makes one (the person's pairwise `sub` for this client,
 * the scopes granted), so that its tokens act for them exactly as a claimed client's, are listed
 * in /mon-espace/agents and stop when withdrawn. The host's earlier authorization by the same
 * person, if any, is withdrawn: the newest replaces it, so the person's list holds one per host.
 */
export async function grantAuthorization(
  tx: Tx,
  input: { clientId: string; clientName: string | null; userId: string; scopes: readonly AgentScope[]; now: Date },
): Promise<{ claimId: string; subject: string }> {
  const { clientId, userId, now } = input;
  await tx
    .update(agentClaims)
    .set({ revokedAt: now })
    .where(
      and(
        eq(agentClaims.clientId, clientId),
        eq(agentClaims.userId, userId),
        eq(agentClaims.via, 'authorization_code'),
        eq(agentClaims.status, 'approved'),
        isNull(agentClaims.revokedAt),
      ),
    );
  const claimId = newSecret(16);
  const subject = await subjectFor(tx, clientId, userId);
  const granted = scopeString(input.scopes);
  await tx.insert(agentClaims).values({
    id: claimId,
    clientId,
    clientName: input.clientName,
    via: 'authorization_code',
    requestedScopes: granted,
    status: 'approved',
    grantedScopes: granted,
    userId,
    subject,
    expiresAt: now,
    decidedAt: now,
    createdAt: now,
  });
  return { claimId, subject };
}

/** Withdraws an authorization whatever its person (a reused code or refresh token): true when it was in force. */
export async function revokeAuthorization(db: Db | Tx, claimId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(agentClaims)
    .set({ revokedAt: now })
    .where(and(eq(agentClaims.id, claimId), eq(agentClaims.status, 'approved'), isNull(agentClaims.revokedAt)))
    .returning({ id: agentClaims.id });
  return rows.length > 0;
}
