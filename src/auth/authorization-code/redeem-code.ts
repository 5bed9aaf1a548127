import { eq } from 'drizzle-orm';
import { revokeAuthorization } from '../../agent-claims/grant-authorization.js';
import { secretHash } from '../../core/secrets.js';
import type { Db } from '../../db/connect.js';
import { agentClaims, oauthAuthorizations } from '../../db/schema.js';
import { verifierMatches } from './pkce.js';

export type Redeemed =
  | { kind: 'redeemed'; claimId: string; subject: string; grantedScopes: string; resources: string[] }
  /** Why the code gives nothing (RFC 6749 §5.2 invalid_grant); `description` is safe to send. */
  | { kind: 'invalid'; description: string };

const NOT_VALID = 'The authorization code is invalid, expired or already used.';

/**
 * Spends an authorization code (RFC 6749 §4.1.3, RFC 7636 §4.6): issued to this client, for this
 * redirect URI, with the verifier of its challenge, within its minute, once. A code presented
 * again revokes the authorization it gave (§4.1.2: "SHOULD revoke … all tokens previously issued
 * based on that authorization code"): its access tokens are refused from their next request on,
 * its refresh tokens at once.
 */
export async function redeemCode(
  db: Db,
  input: { code: string; clientId: string; redirectUri: string | null; verifier: string | null; now: Date },
): Promise<Redeemed> {
  const { now } = input;
  const outcome = await db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        id: oauthAuthorizations.id,
        clientId: oauthAuthorizations.clientId,
        redirectUri: oauthAuthorizations.redirectUri,
        codeChallenge: oauthAuthorizations.codeChallenge,
        resources: oauthAuthorizations.resources,
        claimId: oauthAuthorizations.claimId,
        codeExpiresAt: oauthAuthorizations.codeExpiresAt,
        codeUsedAt: oauthAuthorizations.codeUsedAt,
      })
      .from(oauthAuthorizations)
      .where(eq(oauthAuthorizations.codeHash, secretHash(input.code)))
      .for('update');
    if (!row?.claimId || row.clientId !== input.clientId) return { kind: 'invalid', description: NOT_VALID } as const;
    if (row.codeUsedAt) return { kind: 'reused', claimId: row.claimId } as const;
    if (!row.codeExpiresAt || row.codeExpiresAt <= now) return { kind: 'invalid', description: NOT_VALID } as const;
    if (input.redirectUri !== row.redirectUri)
      return {
        kind: 'invalid',
        description: 'redirect_uri must be the one of the authorization request.',
      } as const;
    if (input.verifier === null || !verifierMatches(input.verifier, row.codeChallenge))
      return { kind: 'invalid', description: 'code_verifier does not match the code_challenge (PKCE).' } as const;
    await tx.update(oauthAuthorizations).set({ codeUsedAt: now }).where(eq(oauthAuthorizations.id, row.id));
    const [claim] = await tx
      .select({
        subject: agentClaims.subject,
        grantedScopes: agentClaims.grantedScopes,
        revokedAt: agentClaims.revokedAt,
      })
      .from(agentClaims)
      .where(eq(agentClaims.id, row.claimId));
    if (!claim?.subject || claim.revokedAt)
      return { kind: 'invalid', description: 'The person withdrew this authorization.' } as const;
    return {
      kind: 'redeemed',
      claimId: row.claimId,
      subject: claim.subject,
      grantedScopes: claim.grantedScopes ?? 'read',
      resources: row.resources.split(' ').filter((r) => r !== ''),
    } as const;
  });
  if (outcome.kind !== 'reused') return outcome;
  await revokeAuthorization(db, outcome.claimId, now);
  return {
    kind: 'invalid',
    description: 'The authorization code was already used; every token it gave is now revoked.',
  };
}
