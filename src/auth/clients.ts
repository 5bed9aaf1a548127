import { eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { oauthClients } from '../db/schema.js';
import { CLIENT_ID_PATTERN } from './secrets.js';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';
/** How a confidential client authenticates (a secret); `none` is a public client (an agent host). */
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'none',
];

export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';
export const GRANT_TYPES: readonly GrantType[] = ['client_credentials', 'authorization_code', 'refresh_token'];

export interface StoredClient {
  clientId: string;
  /** Null for a public client (`none`). */
  secretHash: string | null;
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The grants it registered; `client_credentials` for every client registered without saying. */
  grantTypes: readonly GrantType[];
  /** Its redirect URIs (authorization code only). */
  redirectUris: readonly string[];
  createdAt: Date;
}

export async function insertClient(db: Db, client: StoredClient): Promise<void> {
  const isDefault = client.grantTypes.length === 1 && client.grantTypes[0] === 'client_credentials';
  await db.insert(oauthClients).values({
    clientId: client.clientId,
    secretHash: client.secretHash,
    clientName: client.clientName,
    tokenEndpointAuthMethod: client.tokenEndpointAuthMethod,
    grantTypes: isDefault ? null : client.grantTypes.join(' '),
    redirectUris: client.redirectUris.length > 0 ? [...client.redirectUris] : null,
    createdAt: client.createdAt,
  });
}

export async function findClient(db: Db, clientId: string): Promise<StoredClient | undefined> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  const row = rows[0];
  if (!row) return undefined;
  return {
    clientId: row.clientId,
    secretHash: row.secretHash,
    clientName: row.clientName,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod as TokenEndpointAuthMethod,
    grantTypes: row.grantTypes
      ? GRANT_TYPES.filter((grant) => row.grantTypes?.split(' ').includes(grant))
      : ['client_credentials'],
    redirectUris: row.redirectUris ?? [],
    createdAt: row.createdAt,
  };
}

/**
 * The client a `client_id` names, wherever it is known: the one door through which the token
 * and authorization endpoints look clients up (so that other kinds of client ids, such as
 * client ID metadata documents, plug in here). Undefined for an id that names no client.
 */
export async function resolveClient(db: Db, clientId: string): Promise<StoredClient | undefined> {
  return CLIENT_ID_PATTERN.test(clientId) ? findClient(db, clientId) : undefined;
}
