import { and, eq, isNull } from 'drizzle-orm';
import { newSecret } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { agentClaims } from '../db/schema.js';
import { CLAIM_LIFETIME_SECONDS } from './policy.js';
import type { AgentScope } from './scopes.js';
import { newUserCode, userCodeHash } from './user-code.js';

export type StartedClaim =
  | { kind: 'started'; claimId: string; userCode: string; expiresAt: Date }
  /** The client already acts for a person: one person per client. */
  | { kind: 'in-force' };

/** A client asks a person's consent: a pending claim, its id and the code for the person. */
export async function startClaim(
  db: Db,
  request: { clientId: string; scopes: readonly AgentScope[]; now: Date },
): Promise<StartedClaim> {
  const [inForce] = await db
    .select({ id: agentClaims.id })
    .from(agentClaims)
    .where(
      and(
        eq(agentClaims.clientId, request.clientId),
        eq(agentClaims.status, 'approved'),
        isNull(agentClaims.revokedAt),
        isNull(agentClaims.via),
      ),
    )
    .limit(1);
  if (inForce) return { kind: 'in-force' };
  const claimId = newSecret(16);
  const userCode = newUserCode();
  const expiresAt = new Date(request.now.getTime() + CLAIM_LIFETIME_SECONDS * 1000);
  await db.insert(agentClaims).values({
    id: claimId,
    clientId: request.clientId,
    userCodeHash: userCodeHash(userCode),
    requestedScopes: request.scopes.join(' '),
    expiresAt,
    createdAt: request.now,
  });
  return { kind: 'started', claimId, userCode, expiresAt };
}
