import { eq } from 'drizzle-orm';
import type { JSONWebKeySet } from 'jose';
import type { Db } from '../db/connect.js';
import { oauthClients } from '../db/schema.js';
import type { ClientDocuments } from './cimd/client-documents.js';
import { isUrlClientId } from './cimd/client-id-url.js';
import type { DocumentClient } from './cimd/parse-document.js';
import type { ClientKeys } from './client-keys.js';
import { CLIENT_ID_PATTERN } from './secrets.js';

export type SecretMethod = 'client_secret_basic' | 'client_secret_post';
/**
 * How a client authenticates at the token endpoint: a secret, a signed assertion (keys it
 * published), or `none`, a public client (an agent host in the authorization-code flow).
 */
export type TokenEndpointAuthMethod = SecretMethod | 'private_key_jwt' | 'none';
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'none',
];

export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';
export const GRANT_TYPES: readonly GrantType[] = ['client_credentials', 'authorization_code', 'refresh_token'];

export interface StoredClient {
  clientId: string;
  /** Null for a client without a secret: private_key_jwt (it has keys) or none (public). */
  secretHash: string | null;
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** private_key_jwt: its public keys, inline or where it publishes them. */
  keys?: ClientKeys;
  /** The grants it registered; `client_credentials` for every client registered without saying. */
  grantTypes: readonly GrantType[];
  /** Its redirect URIs (authorization code only). */
  redirectUris: readonly string[];
  createdAt: Date;
}

export async function insertClient(db: Db, client: StoredClient): Promise<void> {
  const { keys } = client;
  const isDefault = client.grantTypes.length === 1 && client.grantTypes[0] === 'client_credentials';
  await db.insert(oauthClients).values({
    clientId: client.clientId,
    secretHash: client.secretHash,
    clientName: client.clientName,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    jwks: keys && 'jwks' in keys ? keys.jwks : null,
    jwksUri: keys && 'jwksUri' in keys ? keys.jwksUri : null,
    grantTypes: isDefault ? null : client.grantTypes.join(' '),
    redirectUris: client.redirectUris.length > 0 ? [...client.redirectUris] : null,
    createdAt: client.createdAt,
  });
}

export async function findClient(db: Db, clientId: string): Promise<StoredClient | undefined> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  const row = rows[0];
  if (!row) return undefined;
  const { jwks, jwksUri } = row;
  const keys: ClientKeys | undefined = jwks ? { jwks: jwks as JSONWebKeySet } : jwksUri ? { jwksUri } : undefined;
  return {
    clientId: row.clientId,
    secretHash: row.secretHash,
    clientName: row.clientName,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod as TokenEndpointAuthMethod,
    ...(keys ? { keys } : {}),
    grantTypes: row.grantTypes
      ? GRANT_TYPES.filter((grant) => row.grantTypes?.split(' ').includes(grant))
      : ['client_credentials'],
    redirectUris: row.redirectUris ?? [],
    createdAt: row.createdAt,
  };
}

/** A client as the token and authorization endpoints see it, whichever way it came to be known. */
export type Client = ({ source: 'registered' } & StoredClient) | ({ source: 'document' } & DocumentClient);

/**
 * THE client lookup, the one door through which the token and authorization endpoints find
 * clients: a client_id that is a URL is a client known by its metadata document (fetched,
 * validated and cached by `documents`; a bad document throws invalid_client saying what is wrong
 * with it); any other is a registered client, or undefined when none has it.
 */
export async function lookupClient(
  deps: { db: Db; documents: ClientDocuments },
  clientId: string,
): Promise<Client | undefined> {
  if (isUrlClientId(clientId)) return { source: 'document', ...(await deps.documents.client(clientId)) };
  if (!CLIENT_ID_PATTERN.test(clientId)) return undefined;
  const stored = await findClient(deps.db, clientId);
  return stored ? { source: 'registered', ...stored } : undefined;
}
