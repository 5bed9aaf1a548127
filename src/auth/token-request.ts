import { decodeJwt } from 'jose';
import { AGENT_SCOPES, type AgentScope, scopesOf } from '../agent-claims/scopes.js';
import { GRANT_TYPES, type GrantType } from './clients.js';
import { OAuthError } from './oauth-errors.js';
import { READ_SCOPE } from './policy.js';

export const BASIC_CHALLENGE = 'Basic realm="token", charset="UTF-8"';

/** RFC 7523 §2.2: the one client assertion type this server takes. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Longer than any assertion signed with one RS256 or ES256 key and the usual claims. */
const MAX_ASSERTION_LENGTH = 8192;

export type ClientCredentials =
  | { method: 'client_secret_basic' | 'client_secret_post'; clientId: string; clientSecret: string }
  /** RFC 7523 §2.2 (private_key_jwt): `clientId` is the assertion's sub, not yet verified. */
  | { method: 'private_key_jwt'; clientId: string; assertion: string }
  /** A public client (an agent host) names itself and proves nothing but its grant (code + PKCE, refresh token). */
  | { method: 'none'; clientId: string };

export interface TokenRequest {
  credentials: ClientCredentials;
  params: URLSearchParams;
}

const MAX_CREDENTIAL_LENGTH = 512;

const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);
export const invalidClient = (description: string) =>
  new OAuthError(401, 'invalid_client', description, BASIC_CHALLENGE);
/**
 * invalid_client without a Basic challenge: for a client that authenticates with an assertion, or is
 * known by its metadata document (RFC 6749 §5.2 asks for the challenge only after HTTP Basic).
 */
export const invalidClientNoChallenge = (description: string) => new OAuthError(401, 'invalid_client', description);

/** RFC 6749 §2.3.1 / Appendix B: Basic credentials are form-urlencoded before base64. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

function parseBasic(header: string): { clientId: string; clientSecret: string } {
  const match = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header);
  if (!match?.[1] || match[1].length > 4 * MAX_CREDENTIAL_LENGTH)
    throw invalidClient('The Authorization header is not valid HTTP Basic client authentication.');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('HTTP Basic credentials must be client_id:client_secret.');
  try {
    return { clientId: formDecode(decoded.slice(0, colon)), clientSecret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('HTTP Basic credentials are not correctly form-urlencoded.');
  }
}

/** Parameters that may appear several times (RFC 8707 §2: one resource per target). */
const REPEATABLE = new Set(['resource']);

/**
 * Reads a token request: form parameters and client authentication (RFC 6749 §2.3.1, §3.2).
 * Exactly one authentication method; parameters not repeated.
 */
export function parseTokenRequest(body: string, authorization: string | undefined): TokenRequest {
  const params = new URLSearchParams(body);
  for (const name of new Set(params.keys())) {
    if (!REPEATABLE.has(name) && params.getAll(name).length > 1)
      throw invalidRequest(`The ${name.slice(0, 40)} parameter must not be sent more than once.`);
  }
  const postId = params.get('client_id');
  const postSecret = params.get('client_secret');
  if (params.has('client_assertion') || params.has('client_assertion_type')) {
    if (authorization !== undefined || postSecret !== null)
      throw invalidRequest(
        'Use one client authentication method: a client assertion (private_key_jwt), HTTP Basic or client_secret, not several.',
      );
    return { credentials: assertionCredentials(params, postId), params };
  }
  let credentials: ClientCredentials;
  if (authorization !== undefined) {
    if (!/^Basic /i.test(authorization))
      throw invalidClient('Client authentication must use HTTP Basic (client_secret_basic) or client_secret_post.');
    const basic = parseBasic(authorization);
    if (postSecret !== null)
      throw invalidRequest('Use one client authentication method: HTTP Basic or client_secret in the body, not both.');
    if (postId !== null && postId !== basic.clientId)
      throw invalidRequest('client_id in the body does not match the HTTP Basic credentials.');
    credentials = { ...basic, method: 'client_secret_basic' };
  } else if (postId && postSecret === null) {
    credentials = { clientId: postId, method: 'none' };
  } else if (postId !== null || postSecret !== null) {
    if (!postId || !postSecret)
      throw invalidClient('client_secret_post authentication needs both client_id and client_secret.');
    credentials = { clientId: postId, clientSecret: postSecret, method: 'client_secret_post' };
  } else {
    throw invalidClient(
      'Client authentication is required: HTTP Basic (client_secret_basic), client_id and client_secret in the body, or a client assertion (private_key_jwt).',
    );
  }
  if (
    credentials.clientId.length > MAX_CREDENTIAL_LENGTH ||
    (credentials.method !== 'none' && credentials.clientSecret.length > MAX_CREDENTIAL_LENGTH)
  )
    throw invalidClient('Client authentication failed.');
  return { credentials, params };
}

/**
 * RFC 7521 §4.2 / RFC 7523 §2.2: client_assertion_type and client_assertion; the client is the
 * assertion's sub (§3), and a client_id sent along must name the same one. Only read here: the
 * signature and claims are checked with the client's keys (client-assertion.ts).
 */
function assertionCredentials(params: URLSearchParams, postId: string | null): ClientCredentials {
  const type = params.get('client_assertion_type');
  const assertion = params.get('client_assertion');
  if (!type || !assertion)
    throw invalidRequest(
      'private_key_jwt client authentication needs both client_assertion_type and client_assertion.',
    );
  if (type !== JWT_BEARER_ASSERTION)
    throw invalidClientNoChallenge(
      `client_assertion_type must be ${JWT_BEARER_ASSERTION} (a JWT signed with the client's key).`,
    );
  if (assertion.length > MAX_ASSERTION_LENGTH)
    throw invalidClientNoChallenge(`The client assertion is longer than ${MAX_ASSERTION_LENGTH} characters.`);
  let sub: unknown;
  try {
    sub = decodeJwt(assertion).sub;
  } catch {
    throw invalidClientNoChallenge('The client assertion is not a JWT (RFC 7523 §3).');
  }
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_CREDENTIAL_LENGTH)
    throw invalidClientNoChallenge("The client assertion's sub must be the client_id (RFC 7523 §3).");
  if (postId !== null && postId !== sub)
    throw invalidClientNoChallenge("client_id does not match the client assertion's sub.");
  return { method: 'private_key_jwt', clientId: sub, assertion };
}

const SCOPES = new Set<string>([READ_SCOPE, ...AGENT_SCOPES]);

/** The grant types a token request may name (RFC 6749 §4.1.3, §4.4.2, §6). */
export function grantTypeOf(
  params: URLSearchParams,
  registered: readonly GrantType[],
  source: 'registered' | 'document' = 'registered',
): GrantType {
  const grantType = params.get('grant_type');
  const onlyClientCredentials = registered.length === 1 && registered[0] === 'client_credentials';
  if (!grantType)
    throw invalidRequest(
      onlyClientCredentials
        ? 'grant_type is required; use client_credentials.'
        : `grant_type is required; this client ${source === 'document' ? 'lists' : 'registered'} ${registered.join(', ') || 'none this server supports'}.`,
    );
  if (!(GRANT_TYPES as readonly string[]).includes(grantType))
    throw new OAuthError(
      400,
      'unsupported_grant_type',
      'The supported grant types are client_credentials, authorization_code and refresh_token.',
    );
  if (!registered.includes(grantType as GrantType))
    throw new OAuthError(
      400,
      'unauthorized_client',
      source === 'document'
        ? `This client's metadata document does not list ${grantType} in grant_types${registered.length ? ` (it lists ${registered.join(', ')})` : ''}.`
        : `This client is not registered for ${grantType} (it registered ${registered.join(', ')}).`,
    );
  return grantType as GrantType;
}

/**
 * Checks scope for client_credentials once the client is authenticated: the agent scopes asked
 * for beyond `read` (none when `scope` is absent or only `read`: spec.md §4.5 unchanged).
 */
export function checkGrant(params: URLSearchParams): AgentScope[] {
  const words = (params.get('scope') ?? '').split(' ').filter((word) => word !== '');
  if (!words.every((word) => SCOPES.has(word)))
    throw new OAuthError(
      400,
      'invalid_scope',
      `Unknown scope. Scopes are "read" (public data, for every client) and, for a client a person claimed and only as they granted, ${AGENT_SCOPES.map((s) => `"${s}"`).join(' and ')}.`,
    );
  return scopesOf(words.join(' '));
}

/** The token's audience from RFC 8707 `resource` parameters, or the default. */
export function audienceFor(params: URLSearchParams, allowed: readonly string[], fallback: string): string | string[] {
  const requested = [...new Set(params.getAll('resource'))];
  if (requested.length === 0) return fallback;
  for (const resource of requested) {
    if (!allowed.includes(resource))
      throw new OAuthError(400, 'invalid_target', `Unknown resource. Tokens are issued for ${allowed.join(' or ')}.`);
  }
  return requested.length === 1 ? requested[0]! : requested;
}
