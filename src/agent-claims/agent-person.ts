import { eq } from 'drizzle-orm';
import type { Identity } from '../auth/identity.js';
import type { Db } from '../db/connect.js';
import { users } from '../db/schema.js';
import { claimInForce } from './claim-in-force.js';
import type { AgentScope } from './scopes.js';

/** The person a claimed client acts for: for the server's own use (sending them mail), never for an answer. */
export interface AgentPerson {
  claimId: string;
  /** The pairwise identifier the client knows the person by (its token's `sub`). */
  subject: string;
  userId: string;
  /** Their email: for the outbox only; never in an answer to an agent, a log line or an error. */
  email: string;
  scopes: AgentScope[];
}

/**
 * The person a request's client acts for, if its token carries a claim still in force (checked
 * again here: the identity was set at the start of the request). Undefined for anonymous
 * callers, unclaimed clients and revoked claims.
 */
export async function agentPerson(db: Db, identity: Identity): Promise<AgentPerson | undefined> {
  if (identity.kind !== 'client' || !identity.claim) return undefined;
  const claim = await claimInForce(db, identity.claim.claimId, identity.clientId);
  if (!claim) return undefined;
  const [user] = await db.select({ email: users.email }).from(users).where(eq(users.id, claim.userId));
  if (!user) return undefined;
  // The token's scopes, within what the claim grants now.
  const scopes = claim.scopes.filter((scope) => identity.scopes.includes(scope));
  return { claimId: claim.claimId, subject: claim.subject, userId: claim.userId, email: user.email, scopes };
}

/** Why a request lacks a scope: the door answers 403 `insufficient_scope` (RFC 6750 §3.1) with `description`. */
export class InsufficientScopeError extends Error {
  readonly code = 'insufficient_scope';
  constructor(
    readonly scope: AgentScope,
    readonly description: string,
  ) {
    super(description);
    this.name = 'InsufficientScopeError';
  }

  /** The WWW-Authenticate challenge for a 403 (RFC 6750 §3). */
  challenge(resourceMetadata: string): string {
    return `Bearer error="insufficient_scope", scope="read ${this.scope}", resource_metadata="${resourceMetadata}"`;
  }
}

/**
 * Throws InsufficientScopeError unless the request's token carries `scope` (which only a claimed
 * client's token can). Say what to do in each case: claim first, or ask for a token with it.
 */
export function requireScope(identity: Identity, scope: AgentScope): void {
  if (identity.kind === 'client' && identity.scopes.includes(scope)) return;
  if (identity.kind === 'client' && identity.claim)
    throw new InsufficientScopeError(
      scope,
      `This token lacks the "${scope}" scope: request a token with scope="read ${scope}" (granted only if the person who claimed this client granted it).`,
    );
  throw new InsufficientScopeError(
    scope,
    `Acting for a person needs their consent: register, get a token, POST /api/oauth/claim and have the person approve "${scope}", then request a token with scope="read ${scope}".`,
  );
}
