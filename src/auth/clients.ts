import { eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { oauthClients } from '../db/schema.js';

export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post';
export const TOKEN_ENDPOINT_AUTH_METHODS: readonly TokenEndpointAuthMethod[] = [
  'client_secret_basic',
  'client_secret_post',
];

export interface StoredClient {
  clientId: string;
  secretHash: string;
  clientName: string;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  createdAt: Date;
}

export async function insertClient(db: Db, client: StoredClient): Promise<void> {
  await db.insert(oauthClients).values(client);
}

export async function findClient(db: Db, clientId: string): Promise<StoredClient | undefined> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  const row = rows[0];
  return row ? { ...row, tokenEndpointAuthMethod: row.tokenEndpointAuthMethod as TokenEndpointAuthMethod } : undefined;
}
