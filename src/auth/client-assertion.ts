import { createLocalJWKSet, errors, type JSONWebKeySet, jwtVerify } from 'jose';
import type { ClientDocuments } from './cimd/client-documents.js';
import { ASSERTION_ALGS, type ClientKeys } from './client-keys.js';
import { CLOCK_TOLERANCE_SECONDS } from './policy.js';
import { invalidClientNoChallenge } from './token-request.js';
import type { AuthUrls } from './urls.js';

/** An assertion may be used this long at most (RFC 7523 §3: exp "limits the time window"). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;
/** A key set published at a jwks_uri is fetched again for a key it lacks, at most this often. */
export const KEY_SET_REFETCH_MS = 60_000;

export interface AssertionContext {
  urls: AuthUrls;
  documents: ClientDocuments;
  now: Date;
  /** Records the jti (see assertion-jtis.ts); false when it was already used. */
  spendJti(clientId: string, jti: string, expiresAt: Date): Promise<boolean>;
}

function describe(err: unknown, urls: AuthUrls): string {
  if (err instanceof errors.JWTExpired)
    return 'The client assertion has expired (exp); sign a new one for each request.';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') {
      if (err.claim === 'exp') return 'The client assertion must have an exp claim.';
      if (err.claim === 'jti') return 'The client assertion must have a jti claim: each assertion is used once.';
    }
    switch (err.claim) {
      case 'aud':
        return `The client assertion's aud must be the token endpoint (${urls.tokenEndpoint}) or the issuer (${urls.issuer}).`;
      case 'iss':
      case 'sub':
        return "The client assertion's iss and sub must both be the client_id (RFC 7523 §3).";
      case 'nbf':
        return 'The client assertion is not valid yet (nbf).';
      default:
        return `The client assertion has an invalid ${/^[a-z_]{1,20}$/.test(err.claim) ? err.claim : ''} claim.`;
    }
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported)
    return `The client assertion must be signed with ${ASSERTION_ALGS.join(' or ')}.`;
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSNoMatchingKey)
    return "The client assertion's signature does not verify with any of the client's public keys.";
  if (err instanceof errors.JWKSMultipleMatchingKeys)
    return "Several of the client's keys match the assertion: give each key a kid and the assertion's header that kid.";
  return 'The client assertion is not a valid signed JWT.';
}

async function verifyWith(assertion: string, keys: JSONWebKeySet, clientId: string, context: AssertionContext) {
  return jwtVerify(assertion, createLocalJWKSet(keys), {
    algorithms: [...ASSERTION_ALGS],
    issuer: clientId,
    subject: clientId,
    // RFC 7523 §3: the token endpoint's URL; the issuer is what SDK clients put (RFC 7523 allows it).
    audience: [context.urls.tokenEndpoint, context.urls.issuer],
    currentDate: context.now,
    clockTolerance: CLOCK_TOLERANCE_SECONDS,
    requiredClaims: ['exp', 'jti'],
  });
}

/**
 * Authenticates a client by its signed assertion (RFC 7523 §2.2, §3; private_key_jwt): signed
 * with ES256 or RS256 by one of the client's keys (inline, or at its jwks_uri: fetched, cached,
 * fetched again once for a key it lacks); iss and sub the client_id; aud the token endpoint or
 * the issuer; exp present and at most five minutes ahead; jti used once, on every instance.
 * Throws invalid_client saying which rule failed.
 */
export async function verifyClientAssertion(
  assertion: string,
  client: { clientId: string; keys?: ClientKeys },
  context: AssertionContext,
): Promise<void> {
  const { clientId, keys } = client;
  if (!keys) throw invalidClientNoChallenge('This client has no public keys: it cannot use private_key_jwt.');
  let payload: { exp?: number; jti?: string };
  try {
    if ('jwks' in keys) {
      ({ payload } = await verifyWith(assertion, keys.jwks, clientId, context));
    } else {
      const published = await context.documents.keySet(keys.jwksUri);
      try {
        ({ payload } = await verifyWith(assertion, published.keys, clientId, context));
      } catch (err) {
        const keyMissing =
          err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWSSignatureVerificationFailed;
        if (!keyMissing) throw err;
        // The client may have rotated its keys since we fetched them.
        const fresh = await context.documents.keySet(keys.jwksUri, KEY_SET_REFETCH_MS);
        if (fresh.fetchedAt === published.fetchedAt) throw err;
        ({ payload } = await verifyWith(assertion, fresh.keys, clientId, context));
      }
    }
  } catch (err) {
    if (err instanceof errors.JOSEError) throw invalidClientNoChallenge(describe(err, context.urls));
    throw err;
  }
  const now = Math.floor(context.now.getTime() / 1000);
  const exp = payload.exp as number;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
    throw invalidClientNoChallenge(
      `The client assertion's exp is too far ahead: assertions may be used for at most ${MAX_ASSERTION_LIFETIME_SECONDS} seconds.`,
    );
  const jti = payload.jti as string;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 200)
    throw invalidClientNoChallenge('The client assertion must have a jti claim of at most 200 characters.');
  const spent = await context.spendJti(clientId, jti, new Date((exp + CLOCK_TOLERANCE_SECONDS) * 1000));
  if (!spent)
    throw invalidClientNoChallenge(
      'This client assertion was already used (its jti): sign a new one for each request.',
    );
}
