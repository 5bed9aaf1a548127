import { and, eq, isNull, lt } from 'drizzle-orm';
import { claimInForce } from '../../agent-claims/claim-in-force.js';
import { revokeAuthorization } from '../../agent-claims/grant-authorization.js';
import { newSecret, secretHash } from '../../core/secrets.js';
import type { Db } from '../../db/connect.js';
import { oauthRefreshTokens } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';

/** A new refresh token of the authorization `claimId`: the token, shown once; only its hash is kept. */
export async function issueRefreshToken(
  db: Db | Tx,
  input: { claimId: string; clientId: string; scope: string; resources: readonly string[]; ttlDays: number; now: Date },
): Promise<string> {
  const token = newSecret(32);
  await db.insert(oauthRefreshTokens).values({
    tokenHash: secretHash(token),
    claimId: input.claimId,
    clientId: input.clientId,
    scope: input.scope,
    resources: input.resources.join(' '),
    expiresAt: new Date(input.now.getTime() + input.ttlDays * 86_400_000),
    createdAt: input.now,
  });
  return token;
}

export type Rotated =
  | {
      kind: 'rotated';
      claimId: string;
      subject: string;
      scope: string;
      resources: string[];
      /** The claim's granted scopes now (a token never carries more). */
      granted: readonly string[];
    }
  | { kind: 'invalid'; description: string };

const NOT_VALID = 'The refresh token is invalid or expired.';

/**
 * Spends a refresh token (RFC 6749 §6; OAuth 2.1 §4.3.1: rotated on every use). The row is marked
 * used by one conditional update, so two uses at once cannot both succeed; a used one presented
 * again is a replay (or a theft): the authorization it belongs to is revoked, every token of it
 * refused from the next request on. The caller issues the new refresh token.
 */
export async function spendRefreshToken(db: Db, token: string, clientId: string, now: Date): Promise<Rotated> {
  const tokenHash = secretHash(token);
  const [spent] = await db
    .update(oauthRefreshTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(oauthRefreshTokens.tokenHash, tokenHash),
        eq(oauthRefreshTokens.clientId, clientId),
        isNull(oauthRefreshTokens.usedAt),
      ),
    )
    .returning({
      claimId: oauthRefreshTokens.claimId,
      scope: oauthRefreshTokens.scope,
      resources: oauthRefreshTokens.resources,
      expiresAt: oauthRefreshTokens.expiresAt,
    });
  if (!spent) {
    const [known] = await db
      .select({ claimId: oauthRefreshTokens.claimId, clientId: oauthRefreshTokens.clientId })
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
    if (known && known.clientId === clientId) {
      await revokeAuthorization(db, known.claimId, now);
      return {
        kind: 'invalid',
        description: 'The refresh token was already used; the authorization it belongs to is now revoked.',
      };
    }
    return { kind: 'invalid', description: NOT_VALID };
  }
  if (spent.expiresAt <= now) return { kind: 'invalid', description: NOT_VALID };
  const claim = await claimInForce(db, spent.claimId, clientId);
  if (!claim) return { kind: 'invalid', description: 'The person withdrew this authorization.' };
  return {
    kind: 'rotated',
    claimId: spent.claimId,
    subject: claim.subject,
    scope: spent.scope,
    resources: spent.resources.split(' ').filter((r) => r !== ''),
    granted: ['read', ...claim.scopes],
  };
}

/** Refresh tokens expired a day ago are forgotten (a used one is kept until then: its replay must be recognised). */
export async function pruneRefreshTokens(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - 24 * 3_600_000);
  const rows = await db
    .delete(oauthRefreshTokens)
    .where(lt(oauthRefreshTokens.expiresAt, before))
    .returning({ tokenHash: oauthRefreshTokens.tokenHash });
  return rows.length;
}
