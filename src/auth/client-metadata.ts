import { AGENT_SCOPES, isAgentScope } from '../agent-claims/scopes.js';
import type { UrlAllowance } from './cimd/client-id-url.js';
import { type ClientKeys, declaredKeys } from './client-keys.js';
import { GRANT_TYPES, type GrantType, TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './clients.js';
import { OAuthError } from './oauth-errors.js';
import { READ_SCOPE } from './policy.js';
import { redirectUriProblem } from './redirect-uris.js';

export interface ClientMetadata {
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** private_key_jwt: the public keys the client signs its assertions with. */
  keys?: ClientKeys;
  /** `["client_credentials"]` for a registration naming no grant type. */
  grantTypes: GrantType[];
  /** Authorization-code clients only. */
  redirectUris: string[];
  /** The scope string the client may ask for (`read`, or `read alerts` for an authorization-code client). */
  scope: string;
}

/** True when the registration is of an agent host (the browser flow), not of spec.md §4.4's clients. */
export function isAuthorizationCodeClient(metadata: { grantTypes: readonly GrantType[] }): boolean {
  return metadata.grantTypes.includes('authorization_code');
}

export const CLIENT_NAME_MAX = 100;

// Control characters, unassigned, private-use and lone surrogates, line/paragraph separators,
// and the bidirectional overrides that can make a name display as something else.
export const UNPRINTABLE = /[\p{Cc}\p{Cn}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069\uFEFF]/u;

const invalid = (description: string) => new OAuthError(400, 'invalid_client_metadata', description);

/** RFC 7591 §2: a private_key_jwt client gives its public keys, inline or by URL, not both. */
const registeredKeys = (metadata: Record<string, unknown>, allowance: UrlAllowance): ClientKeys =>
  declaredKeys(
    metadata,
    allowance,
    invalid,
    'token_endpoint_auth_method private_key_jwt needs your public keys: jwks or jwks_uri.',
  );

/**
 * Validates an RFC 7591 registration request. Only the metadata this server acts on is read;
 * everything else is ignored, as §2 asks ("the authorization server MUST ignore any client
 * metadata sent by the client that it does not understand").
 */
export function parseClientMetadata(body: unknown, allowance: UrlAllowance): ClientMetadata {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('The request body must be a JSON object of client metadata.');
  const metadata = body as Record<string, unknown>;

  const rawName = metadata.client_name;
  if (rawName === undefined || rawName === null) throw invalid('client_name is required.');
  if (typeof rawName !== 'string') throw invalid('client_name must be a string.');
  const clientName = rawName.normalize('NFC').trim();
  if (clientName.length === 0) throw invalid('client_name must not be empty.');
  if ([...clientName].length > CLIENT_NAME_MAX)
    throw invalid(`client_name must be at most ${CLIENT_NAME_MAX} characters.`);
  if (UNPRINTABLE.test(clientName)) throw invalid('client_name must contain printable characters only.');

  const grantTypes = parseGrantTypes(metadata.grant_types);
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!grantTypes.includes('authorization_code')) {
    // spec.md §4.4's clients: exactly the checks (and answers) they always had, and private_key_jwt.
    if (method !== 'client_secret_basic' && method !== 'client_secret_post' && method !== 'private_key_jwt')
      throw invalid('token_endpoint_auth_method must be client_secret_basic, client_secret_post or private_key_jwt.');
    const scope = metadata.scope;
    if (
      scope !== undefined &&
      (typeof scope !== 'string' || !scope.split(' ').every((s) => s === READ_SCOPE || s === ''))
    )
      throw invalid('scope must be "read": it is the only scope.');
    return {
      clientName,
      tokenEndpointAuthMethod: method,
      ...(method === 'private_key_jwt' ? { keys: registeredKeys(metadata, allowance) } : {}),
      grantTypes,
      redirectUris: [],
      scope: READ_SCOPE,
    };
  }

  // An agent host (authorization code, RFC 7591 §2 with RFC 8252's redirect URIs).
  if (typeof method !== 'string' || !TOKEN_ENDPOINT_AUTH_METHODS.includes(method as TokenEndpointAuthMethod))
    throw invalid(
      'token_endpoint_auth_method must be none (a public client), client_secret_basic, client_secret_post or private_key_jwt.',
    );
  if (method === 'none' && grantTypes.includes('client_credentials'))
    throw invalid('A public client (token_endpoint_auth_method none) cannot use client_credentials: it has no secret.');
  const responseTypes = metadata.response_types;
  if (
    responseTypes !== undefined &&
    !(Array.isArray(responseTypes) && responseTypes.length > 0 && responseTypes.every((t) => t === 'code'))
  )
    throw invalid('response_types must be ["code"]: it is the only response type this server supports.');
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0)
    throw new OAuthError(
      400,
      'invalid_redirect_uri',
      'redirect_uris is required with the authorization_code grant: a list of https or loopback http URIs.',
    );
  if (uris.length > MAX_REDIRECT_URIS)
    throw new OAuthError(400, 'invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris.`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError(400, 'invalid_redirect_uri', `redirect_uris: ${problem}.`);
  }
  return {
    clientName,
    tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
    ...(method === 'private_key_jwt' ? { keys: registeredKeys(metadata, allowance) } : {}),
    grantTypes,
    redirectUris: [...new Set(uris as string[])],
    scope: parseAgentHostScope(metadata.scope),
  };
}

const MAX_REDIRECT_URIS = 10;

/**
 * `grant_types`: absent → client_credentials (RFC 7591 §2's default is authorization_code, but
 * spec.md §4.4's clients name none and must get exactly what they always got). refresh_token only
 * with authorization_code.
 */
function parseGrantTypes(value: unknown): GrantType[] {
  if (value === undefined) return ['client_credentials'];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((g) => typeof g === 'string' && GRANT_TYPES.includes(g as GrantType))
  )
    throw invalid(
      'grant_types must be ["client_credentials"] (programs), or ["authorization_code", "refresh_token"] (agent hosts acting for a person through the browser).',
    );
  const grants = GRANT_TYPES.filter((g) => value.includes(g));
  if (grants.includes('refresh_token') && !grants.includes('authorization_code'))
    throw invalid('The refresh_token grant goes with authorization_code.');
  return grants;
}

/** An agent host's `scope`: `read` and the agent scopes a person may grant; `read` when absent. */
function parseAgentHostScope(value: unknown): string {
  if (value === undefined || value === null) return READ_SCOPE;
  if (typeof value !== 'string') throw invalid('scope must be a string of space-separated scopes.');
  const words = value.split(' ').filter((w) => w !== '');
  if (!words.every((w) => w === READ_SCOPE || isAgentScope(w)))
    throw invalid(
      `scope may name "read" and, granted only by the person, ${AGENT_SCOPES.map((s) => `"${s}"`).join(' and ')}.`,
    );
  return [READ_SCOPE, ...AGENT_SCOPES.filter((s) => words.includes(s))].join(' ');
}
