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
export type TokenEndpointAuthMethod = SecretMethod | 'private_key_jwt';
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
];

export interface StoredClient {
  clientId: string;
  /** Null for a private_key_jwt client: it has keys, not a secret. */
  secretHash: string | null;
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  keys?: ClientKeys;
  createdAt: Date;
}

export async function insertClient(db: Db, client: StoredClient): Promise<void> {
  const { keys, ...row } = client;
  await db.insert(oauthClients).values({
    ...row,
    jwks: keys && 'jwks' in keys ? keys.jwks : null,
    jwksUri: keys && 'jwksUri' in keys ? keys.jwksUri : null,
  });
}

export async function findClient(db: Db, clientId: string): Promise<StoredClient | undefined> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  const row = rows[0];
  if (!row) return undefined;
  const { jwks, jwksUri, ...rest } = row;
  const keys: ClientKeys | undefined = jwks ? { jwks: jwks as JSONWebKeySet } : jwksUri ? { jwksUri } : undefined;
  return {
    ...rest,
    tokenEndpointAuthMethod: row.tokenEndpointAuthMethod as TokenEndpointAuthMethod,
    ...(keys ? { keys } : {}),
  };
}

/** A client as the token and authorization endpoints see it, whichever way it came to be known. */
export type Client = ({ source: 'registered' } & StoredClient) | ({ source: 'document' } & DocumentClient);

/**
 * THE client lookup: a client_id that is a URL is a client known by its metadata document
 * (fetched, validated and cached by `documents`; a bad document throws invalid_client saying
 * what is wrong with it); any other is a registered client, or undefined when none has it.
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
