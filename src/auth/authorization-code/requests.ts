import { and, eq, gt, lt, sql } from 'drizzle-orm';
import { grantAuthorization } from '../../agent-claims/grant-authorization.js';
import { type AgentScope, scopesOf } from '../../agent-claims/scopes.js';
import { newSecret, secretHash } from '../../core/secrets.js';
import type { Db } from '../../db/connect.js';
import { oauthAuthorizations, oauthClients } from '../../db/schema.js';
import { isUrlClientId } from '../cimd/client-id-url.js';
import type { AuthorizationRequest } from './authorization-request.js';
import { AUTHORIZATION_CODE_LIFETIME_SECONDS, AUTHORIZATION_REQUEST_LIFETIME_SECONDS } from './policy.js';

/** Keeps a valid authorization request for the person to answer: its id. */
export async function createAuthorizationRequest(db: Db, request: AuthorizationRequest, now: Date): Promise<string> {
  const id = newSecret(16);
  await db.insert(oauthAuthorizations).values({
    id,
    clientId: request.client.clientId,
    // A URL client has no row to join: its document's name is kept with the request.
    clientName: request.client.source === 'document' ? request.client.clientName : null,
    redirectUri: request.redirectUri,
    state: request.state ?? null,
    codeChallenge: request.codeChallenge,
    requestedScopes: request.scopes.join(' '),
    resources: request.resources.join(' '),
    expiresAt: new Date(now.getTime() + AUTHORIZATION_REQUEST_LIFETIME_SECONDS * 1000),
    createdAt: now,
  });
  return id;
}

export interface RequestForPage {
  id: string;
  /** The name the client gave itself: unverified. */
  clientName: string;
  /** A client known by its metadata document: the host serving it (verified: the document was fetched from it). */
  clientHost: string | undefined;
  redirectUri: string;
  state: string | null;
  requested: AgentScope[];
  /** `pending` until answered or expired. */
  status: 'pending' | 'answered' | 'expired';
}

/** A request as the person's page shows it. */
export async function requestForPage(db: Db, id: string, now: Date): Promise<RequestForPage | undefined> {
  const [row] = await db
    .select({
      id: oauthAuthorizations.id,
      clientId: oauthAuthorizations.clientId,
      clientName: sql<string>`coalesce(${oauthClients.clientName}, ${oauthAuthorizations.clientName}, ${oauthAuthorizations.clientId})`,
      redirectUri: oauthAuthorizations.redirectUri,
      state: oauthAuthorizations.state,
      requestedScopes: oauthAuthorizations.requestedScopes,
      status: oauthAuthorizations.status,
      expiresAt: oauthAuthorizations.expiresAt,
    })
    .from(oauthAuthorizations)
    .leftJoin(oauthClients, eq(oauthClients.clientId, oauthAuthorizations.clientId))
    .where(eq(oauthAuthorizations.id, id));
  if (!row) return undefined;
  return {
    id: row.id,
    clientName: row.clientName,
    clientHost: isUrlClientId(row.clientId) ? new URL(row.clientId).host : undefined,
    redirectUri: row.redirectUri,
    state: row.state,
    requested: scopesOf(row.requestedScopes),
    status: row.status !== 'pending' ? 'answered' : row.expiresAt <= now ? 'expired' : 'pending',
  };
}

const pendingNow = (id: string, now: Date) =>
  and(
    eq(oauthAuthorizations.id, id),
    eq(oauthAuthorizations.status, 'pending'),
    gt(oauthAuthorizations.expiresAt, now),
  );

export type Answer =
  | { kind: 'approved'; redirectUri: string; state: string | null; code: string }
  | { kind: 'denied'; redirectUri: string; state: string | null }
  /** Gone, expired or answered before. */
  | { kind: 'not-pending' };

/** The signed-in person refuses. One conditional update: a repeated answer changes nothing. */
export async function denyAuthorizationRequest(db: Db, id: string, userId: string, now: Date): Promise<Answer> {
  const [row] = await db
    .update(oauthAuthorizations)
    .set({ status: 'denied', userId })
    .where(pendingNow(id, now))
    .returning({ redirectUri: oauthAuthorizations.redirectUri, state: oauthAuthorizations.state });
  return row ? { kind: 'denied', ...row } : { kind: 'not-pending' };
}

/**
 * The signed-in person approves, granting `scopes` (among those asked): in one transaction, the
 * authorization (a claim) and a one-time code, of which only the hash is kept.
 */
export async function approveAuthorizationRequest(
  db: Db,
  input: { id: string; userId: string; scopes: readonly AgentScope[]; now: Date },
): Promise<Answer> {
  const { id, now } = input;
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        clientId: oauthAuthorizations.clientId,
        clientName: oauthAuthorizations.clientName,
        redirectUri: oauthAuthorizations.redirectUri,
        state: oauthAuthorizations.state,
        requestedScopes: oauthAuthorizations.requestedScopes,
      })
      .from(oauthAuthorizations)
      .where(pendingNow(id, now))
      .for('update');
    if (!row) return { kind: 'not-pending' } as const;
    const asked = scopesOf(row.requestedScopes);
    const { claimId } = await grantAuthorization(tx, {
      clientId: row.clientId,
      clientName: row.clientName,
      userId: input.userId,
      scopes: input.scopes.filter((s) => asked.includes(s)),
      now,
    });
    const code = newSecret(32);
    await tx
      .update(oauthAuthorizations)
      .set({
        status: 'approved',
        userId: input.userId,
        claimId,
        codeHash: secretHash(code),
        codeExpiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_SECONDS * 1000),
      })
      .where(eq(oauthAuthorizations.id, id));
    return { kind: 'approved', redirectUri: row.redirectUri, state: row.state, code } as const;
  });
}

/** A request kept a day past its expiry is forgotten (its code, long spent or dead, with it). */
export const REQUEST_KEPT_MS = 24 * 3_600_000;

export async function pruneAuthorizationRequests(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(oauthAuthorizations)
    .where(lt(oauthAuthorizations.expiresAt, new Date(now.getTime() - REQUEST_KEPT_MS)))
    .returning({ id: oauthAuthorizations.id });
  return rows.length;
}
