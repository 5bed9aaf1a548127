import type { JSONWebKeySet } from 'jose';
import { clientUrlRefusal, type UrlAllowance } from './cimd/client-id-url.js';
import { type ClientKeys, jwksRefusal } from './client-keys.js';
import { TOKEN_ENDPOINT_AUTH_METHODS, type TokenEndpointAuthMethod } from './clients.js';
import { OAuthError } from './oauth-errors.js';
import { READ_SCOPE } from './policy.js';

export interface ClientMetadata {
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** private_key_jwt: the public keys the client signs its assertions with. */
  keys?: ClientKeys;
}

export const CLIENT_NAME_MAX = 100;

// Control characters, unassigned, private-use and lone surrogates, line/paragraph separators,
// and the bidirectional overrides that can make a name display as something else.
export const UNPRINTABLE = /[\p{Cc}\p{Cn}\p{Co}\p{Cs}\p{Zl}\p{Zp}\u202A-\u202E\u2066-\u2069\uFEFF]/u;

const invalid = (description: string) => new OAuthError(400, 'invalid_client_metadata', description);

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

  const grantTypes = metadata.grant_types;
  if (
    grantTypes !== undefined &&
    !(Array.isArray(grantTypes) && grantTypes.length > 0 && grantTypes.every((g) => g === 'client_credentials'))
  )
    throw invalid('grant_types must be ["client_credentials"]: it is the only grant this server supports.');

  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !TOKEN_ENDPOINT_AUTH_METHODS.includes(method as TokenEndpointAuthMethod))
    throw invalid('token_endpoint_auth_method must be client_secret_basic, client_secret_post or private_key_jwt.');

  const scope = metadata.scope;
  if (
    scope !== undefined &&
    (typeof scope !== 'string' || !scope.split(' ').every((s) => s === READ_SCOPE || s === ''))
  )
    throw invalid('scope must be "read": it is the only scope.');

  if (method !== 'private_key_jwt') return { clientName, tokenEndpointAuthMethod: method as TokenEndpointAuthMethod };
  return { clientName, tokenEndpointAuthMethod: method, keys: registeredKeys(metadata, allowance) };
}

/** RFC 7591 §2: a private_key_jwt client gives its public keys, inline or by URL, not both. */
function registeredKeys(metadata: Record<string, unknown>, allowance: UrlAllowance): ClientKeys {
  const { jwks, jwks_uri: jwksUri } = metadata;
  if (jwks !== undefined && jwksUri !== undefined) throw invalid('jwks and jwks_uri must not both be present.');
  if (jwks !== undefined) {
    const refusal = jwksRefusal(jwks);
    if (refusal) throw invalid(refusal);
    return { jwks: jwks as JSONWebKeySet };
  }
  if (typeof jwksUri !== 'string')
    throw invalid('token_endpoint_auth_method private_key_jwt needs your public keys: jwks or jwks_uri.');
  const refusal = clientUrlRefusal(jwksUri, allowance, 'jwks_uri');
  if (refusal) throw invalid(refusal);
  return { jwksUri };
}
