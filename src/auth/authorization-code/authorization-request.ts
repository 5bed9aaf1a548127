import { AGENT_SCOPES, type AgentScope, isAgentScope } from '../../agent-claims/scopes.js';
import type { Client } from '../clients.js';
import type { OAuthErrorCode } from '../oauth-errors.js';
import { OAuthError } from '../oauth-errors.js';
import { READ_SCOPE } from '../policy.js';
import { matchRedirectUri, redirectUriProblem } from '../redirect-uris.js';
import { CODE_CHALLENGE } from './pkce.js';
import { MAX_STATE_LENGTH } from './policy.js';

/** A valid authorization request (RFC 6749 §4.1.1 with RFC 7636 and RFC 8707). */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  /** Agent scopes asked beyond `read`. */
  scopes: AgentScope[];
  /** RFC 8707 resources asked (empty: the MCP endpoint). */
  resources: string[];
}

export type ParsedAuthorizationRequest =
  | { kind: 'valid'; request: AuthorizationRequest }
  /** Before the redirect URI is known good: told to the person on the page, never redirected (RFC 6749 §4.1.2.1). */
  | { kind: 'page-error'; description: string }
  /** Once it is: sent back to the client at its redirect URI. */
  | {
      kind: 'redirect-error';
      redirectUri: string;
      state: string | undefined;
      error: OAuthErrorCode;
      description: string;
    };

/**
 * Reads an authorization request. `lookUp` finds the client (the one lookup of src/auth/clients.ts:
 * a registered client, or one known by its metadata document, whose unusable document is told on the page);
 * `resources` are the resource indicators tokens may be issued for.
 */
export async function parseAuthorizationRequest(
  params: URLSearchParams,
  lookUp: (clientId: string) => Promise<Client | undefined>,
  resources: readonly string[],
): Promise<ParsedAuthorizationRequest> {
  const page = (description: string) => ({ kind: 'page-error', description }) as const;
  for (const name of ['client_id', 'redirect_uri'])
    if (params.getAll(name).length > 1) return page(`The ${name} parameter must not be sent more than once.`);
  const clientId = params.get('client_id');
  if (!clientId) return page('client_id is required.');
  let client: Client | undefined;
  try {
    client = clientId.length <= 2000 ? await lookUp(clientId) : undefined;
  } catch (err) {
    // A URL client whose document cannot be fetched or used: its redirect URIs are unknown.
    if (err instanceof OAuthError) return page(err.description);
    throw err;
  }
  if (!client) return page('No client is registered with this client_id.');
  if (!client.grantTypes.includes('authorization_code'))
    return page(
      client.source === 'document'
        ? "This client's metadata document does not list authorization_code in grant_types."
        : 'This client was registered for client_credentials only: it has no redirect URI. Register it with grant_types ["authorization_code", "refresh_token"] and its redirect_uris.',
    );
  const asked = params.get('redirect_uri');
  const redirectUri =
    asked === null
      ? client.redirectUris.length === 1
        ? client.redirectUris[0]
        : undefined
      : matchRedirectUri(client.redirectUris, asked);
  const registered = client.source === 'document' ? 'its metadata document lists' : 'this client registered';
  if (redirectUri === undefined)
    return page(
      asked === null ? `redirect_uri is required: ${registered} several.` : `redirect_uri is not one ${registered}.`,
    );
  // A document's redirect URIs were never checked as a registration's are.
  const unsafe = redirectUriProblem(redirectUri);
  if (unsafe) return page(`The redirect URI cannot be used: ${unsafe}.`);

  const rawState = params.get('state') ?? undefined;
  const state = rawState !== undefined && rawState.length <= MAX_STATE_LENGTH ? rawState : undefined;
  const back = (error: OAuthErrorCode, description: string) =>
    ({ kind: 'redirect-error', redirectUri, state, error, description }) as const;
  if (rawState !== undefined && state === undefined)
    return back('invalid_request', `state must be at most ${MAX_STATE_LENGTH} characters.`);
  for (const name of new Set(params.keys()))
    if (name !== 'resource' && params.getAll(name).length > 1)
      return back('invalid_request', `The ${name.slice(0, 40)} parameter must not be sent more than once.`);
  const responseType = params.get('response_type');
  if (!responseType) return back('invalid_request', 'response_type is required; use code.');
  if (responseType !== 'code')
    return back('unsupported_response_type', 'The only response_type is code (with PKCE S256).');
  const challenge = params.get('code_challenge');
  const method = params.get('code_challenge_method');
  if (!challenge)
    return back('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256.');
  if (method !== 'S256')
    return back(
      'invalid_request',
      method === null || method === 'plain'
        ? 'code_challenge_method must be S256; the plain method is refused.'
        : 'code_challenge_method must be S256.',
    );
  if (!CODE_CHALLENGE.test(challenge))
    return back('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');

  const words = [...new Set((params.get('scope') ?? '').split(' ').filter((w) => w !== ''))];
  if (!words.every((w) => w === READ_SCOPE || isAgentScope(w)))
    return back(
      'invalid_scope',
      `Unknown scope. Ask for "read" and, for the person to grant, ${AGENT_SCOPES.map((s) => `"${s}"`).join(' and ')}.`,
    );
  const asks = [...new Set(params.getAll('resource'))];
  if (asks.some((resource) => !resources.includes(resource)))
    return back('invalid_target', `Unknown resource. Tokens are issued for ${resources.join(' or ')}.`);
  return {
    kind: 'valid',
    request: {
      client,
      redirectUri,
      state,
      codeChallenge: challenge,
      scopes: AGENT_SCOPES.filter((s) => words.includes(s)),
      resources: asks,
    },
  };
}

/** The address the person's browser is sent back to: the redirect URI with the answer and `iss` (RFC 9207). */
export function answerUri(redirectUri: string, issuer: string, answer: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.href;
}
