import { and, eq, gt, sql } from 'drizzle-orm';
import { newSecret } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { pgError } from '../db/pg-error.js';
import { agentClaims } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { MAX_WRONG_CODES } from './policy.js';
import { type AgentScope, scopeString } from './scopes.js';
import { userCodeHash } from './user-code.js';

export type Decision =
  | { kind: 'approved' | 'denied' }
  | { kind: 'wrong-code'; triesLeft: number }
  /** Too many wrong codes: the claim is refused for good. */
  | { kind: 'locked' }
  /** Gone, expired or decided before this answer. */
  | { kind: 'not-pending' }
  /** The client acts for someone already (a second claim approved meanwhile). */
  | { kind: 'in-force' };

const pendingNow = (claimId: string, now: Date) =>
  and(eq(agentClaims.id, claimId), eq(agentClaims.status, 'pending'), gt(agentClaims.expiresAt, now));

/**
 * The person's `sub` for this client: the one of an earlier claim of theirs for the same client,
 * or a new random one. Pairwise: two clients never see the same value for one person.
 */
export async function subjectFor(tx: Tx, clientId: string, userId: string): Promise<string> {
  const [earlier] = await tx
    .select({ subject: agentClaims.subject })
    .from(agentClaims)
    .where(
      and(eq(agentClaims.clientId, clientId), eq(agentClaims.userId, userId), sql`${agentClaims.subject} is not null`),
    )
    .limit(1);
  return earlier?.subject ?? `psn_${newSecret(16)}`;
}

/**
 * The signed-in person approves a pending claim, granting `scopes` (among those asked), after
 * typing the code the agent gave them. One conditional UPDATE: two answers at once cannot both
 * decide it. A wrong code counts; the MAX_WRONG_CODES-th refuses the claim.
 */
export async function approveClaim(
  db: Db,
  input: { claimId: string; userId: string; userCode: string; scopes: readonly AgentScope[]; now: Date },
): Promise<Decision> {
  const { claimId, now } = input;
  try {
    return await db.transaction(async (tx) => {
      const [claim] = await tx
        .select({ clientId: agentClaims.clientId, userCodeHash: agentClaims.userCodeHash })
        .from(agentClaims)
        .where(pendingNow(claimId, now))
        .for('update');
      if (!claim) return { kind: 'not-pending' } as const;
      if (claim.userCodeHash !== userCodeHash(input.userCode)) {
        const [row] = await tx
          .update(agentClaims)
          .set({
            wrongCodes: sql`${agentClaims.wrongCodes} + 1`,
            status: sql`case when ${agentClaims.wrongCodes} + 1 >= ${MAX_WRONG_CODES} then 'denied' else 'pending' end`,
            decidedAt: sql`case when ${agentClaims.wrongCodes} + 1 >= ${MAX_WRONG_CODES} then ${now.toISOString()}::timestamptz else null end`,
          })
          .where(eq(agentClaims.id, claimId))
          .returning({ wrongCodes: agentClaims.wrongCodes });
        const left = MAX_WRONG_CODES - (row?.wrongCodes ?? MAX_WRONG_CODES);
        return left > 0 ? ({ kind: 'wrong-code', triesLeft: left } as const) : ({ kind: 'locked' } as const);
      }
      await tx
        .update(agentClaims)
        .set({
          status: 'approved',
          grantedScopes: scopeString(input.scopes),
          userId: input.userId,
          subject: await subjectFor(tx, claim.clientId, input.userId),
          decidedAt: now,
        })
        .where(eq(agentClaims.id, claimId));
      return { kind: 'approved' } as const;
    });
  } catch (err) {
    // agent_claims_one_in_force: another claim of this client was approved first.
    if (pgError(err)?.code === '23505') return { kind: 'in-force' };
    throw err;
  }
}

/** The signed-in person refuses a pending claim (no code needed to say no). */
export async function denyClaim(db: Db, claimId: string, userId: string, now: Date): Promise<Decision> {
  const rows = await db
    .update(agentClaims)
    .set({ status: 'denied', userId, decidedAt: now })
    .where(pendingNow(claimId, now))
    .returning({ id: agentClaims.id });
  return rows.length > 0 ? { kind: 'denied' } : { kind: 'not-pending' };
}
