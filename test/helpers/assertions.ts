import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface ClientKey {
  alg: 'ES256' | 'RS256';
  kid: string;
  privateKey: CryptoKey;
  /** The public JWK a client publishes (kid, alg, use). */
  publicJwk: JWK;
}

export async function clientKey(alg: 'ES256' | 'RS256' = 'ES256'): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomUUID();
  return { alg, kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export interface AssertionClaims {
  clientId: string;
  aud: string | string[];
  /** Seconds since the epoch; the assertion's time base (the app's frozen clock). */
  now: number;
  lifetime?: number;
  jti?: string;
  iss?: string;
  sub?: string;
  omit?: ('exp' | 'jti')[];
}

/** An RFC 7523 client assertion, as a private_key_jwt client signs one. */
export async function signAssertion(key: ClientKey, claims: AssertionClaims): Promise<string> {
  const omit = new Set(claims.omit ?? []);
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
    .setIssuer(claims.iss ?? claims.clientId)
    .setSubject(claims.sub ?? claims.clientId)
    .setAudience(claims.aud)
    .setIssuedAt(claims.now);
  if (!omit.has('exp')) jwt.setExpirationTime(claims.now + (claims.lifetime ?? 60));
  if (!omit.has('jti')) jwt.setJti(claims.jti ?? randomUUID());
  return jwt.sign(key.privateKey);
}

/** The form of a client_credentials token request authenticated by an assertion. */
export function assertionForm(assertion: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    ...extra,
  }).toString();
}
