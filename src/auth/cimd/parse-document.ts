import { type ClientKeys, declaredKeys } from '../client-keys.js';
import { CLIENT_NAME_MAX, UNPRINTABLE } from '../client-metadata.js';
import type { UrlAllowance } from './client-id-url.js';

/** The grants a document may name that this server knows; others are ignored (another server's). */
export const DOCUMENT_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export type DocumentGrantType = (typeof DOCUMENT_GRANT_TYPES)[number];

/** A client known by its Client ID Metadata Document, as this server uses it. */
export interface DocumentClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  grantTypes: DocumentGrantType[];
  /** A document cannot hold a shared secret: a public client, or one that signs assertions. */
  tokenEndpointAuthMethod: 'none' | 'private_key_jwt';
  keys?: ClientKeys;
}

const MAX_REDIRECT_URIS = 20;
// Client authentication with a shared secret cannot be set up through a public document (§4.1).
const SECRET_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];

/** A document that is not a usable client: `reason` says what is wrong with it. */
export class InvalidDocument extends Error {
  override readonly name = 'InvalidDocument';
}

const invalid = (reason: string) => new InvalidDocument(reason);
const MISSING_KEYS =
  'token_endpoint_auth_method private_key_jwt needs the client\'s public keys: "jwks" or "jwks_uri".';

function clientName(value: unknown, clientId: string): string {
  if (value === undefined || value === null) return new URL(clientId).host;
  if (typeof value !== 'string') throw invalid('client_name must be a string.');
  const name = value.normalize('NFC').trim();
  if (name.length === 0 || [...name].length > CLIENT_NAME_MAX || UNPRINTABLE.test(name))
    throw invalid(`client_name must be 1 to ${CLIENT_NAME_MAX} printable characters.`);
  return name;
}

function grantTypes(value: unknown): DocumentGrantType[] {
  // RFC 7591 §2: absent means authorization_code.
  if (value === undefined) return ['authorization_code'];
  if (!Array.isArray(value) || !value.every((g) => typeof g === 'string'))
    throw invalid('grant_types must be an array of strings.');
  return DOCUMENT_GRANT_TYPES.filter((g) => value.includes(g));
}

function redirectUris(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > MAX_REDIRECT_URIS)
    throw invalid(`redirect_uris must be an array of at most ${MAX_REDIRECT_URIS} URLs.`);
  for (const uri of value) {
    if (typeof uri !== 'string' || !URL.canParse(uri) || uri.includes('#') || uri.length > 2000)
      throw invalid('redirect_uris must hold absolute URLs without a fragment.');
  }
  return value as string[];
}

/**
 * Validates a fetched Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document
 * §4, §4.1): a JSON object whose client_id is the URL it was fetched from, character for
 * character; no shared secret of any kind; `none` or `private_key_jwt` with public keys.
 * Metadata this server does not act on is ignored, as RFC 7591 §2 asks.
 */
export function parseDocument(json: unknown, url: string, allowance: UrlAllowance): DocumentClient {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalid('it is not a JSON object.');
  const document = json as Record<string, unknown>;
  if (document.client_id !== url)
    throw invalid(
      typeof document.client_id === 'string'
        ? 'its client_id is not the URL it was fetched from (they must be identical, character for character).'
        : 'it has no client_id member (it must be the URL it was fetched from).',
    );
  if (document.client_secret !== undefined || document.client_secret_expires_at !== undefined)
    throw invalid('it contains client_secret: a metadata document is public and must not carry a secret.');
  const method = document.token_endpoint_auth_method ?? 'none';
  if (typeof method === 'string' && SECRET_METHODS.includes(method))
    throw invalid(`token_endpoint_auth_method ${method} needs a shared secret; use none or private_key_jwt.`);
  if (method !== 'none' && method !== 'private_key_jwt')
    throw invalid('token_endpoint_auth_method must be none or private_key_jwt.');
  const grants = grantTypes(document.grant_types);
  const uris = redirectUris(document.redirect_uris);
  if (grants.includes('authorization_code') && uris.length === 0)
    throw invalid('redirect_uris is required for the authorization_code grant.');
  return {
    clientId: url,
    clientName: clientName(document.client_name, url),
    redirectUris: uris,
    grantTypes: grants,
    tokenEndpointAuthMethod: method,
    ...(method === 'private_key_jwt' ? { keys: declaredKeys(document, allowance, invalid, MISSING_KEYS) } : {}),
  };
}
