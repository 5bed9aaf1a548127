import { isNull } from 'drizzle-orm';
import { importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';
import type { Db } from '../../src/db/connect.js';
import { signingKeys } from '../../src/db/schema.js';
import { BASE_URL } from './app.js';

/** The stored private key of the active signing key, to forge tokens the server would have signed. */
export async function activeKey(db: Db): Promise<{ kid: string; privateKey: CryptoKey; publicJwk: JWK }> {
  const [row] = await db.select().from(signingKeys).where(isNull(signingKeys.retiresAt));
  if (!row) throw new Error('no active key');
  return {
    kid: row.kid,
    privateKey: (await importJWK(row.privateJwk as JWK, 'ES256')) as CryptoKey,
    publicJwk: row.publicJwk as JWK,
  };
}

export function claimsAt(now: Date, clientId = 'cl_AAAAAAAAAAAAAAAAAAAAAA'): JWTPayload {
  const iat = Math.floor(now.getTime() / 1000);
  return {
    iss: BASE_URL,
    aud: `${BASE_URL}/api/mcp`,
    sub: clientId,
    client_id: clientId,
    scope: 'read',
    iat,
    exp: iat + 3600,
    jti: 'b1b2c3d4-0000-4000-8000-000000000000',
  };
}

export async function sign(
  key: CryptoKey | Uint8Array,
  payload: JWTPayload,
  header: { alg?: string; typ?: string; kid?: string } = {},
): Promise<string> {
  const { alg = 'ES256', typ = 'at+jwt', kid } = header;
  return new SignJWT(payload).setProtectedHeader({ alg, typ, ...(kid === undefined ? {} : { kid }) }).sign(key);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A token with any header and payload and an arbitrary signature part, built by hand. */
export function handmade(header: object, payload: object, signature = ''): string {
  return `${b64(header)}.${b64(payload)}.${signature}`;
}
