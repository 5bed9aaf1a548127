import type { JSONWebKeySet } from 'jose';
import { clientUrlRefusal, type UrlAllowance } from './cimd/client-id-url.js';

/** What private_key_jwt assertions may be signed with (metadata: token_endpoint_auth_signing_alg_values_supported). */
export const ASSERTION_ALGS = ['ES256', 'RS256'] as const;

/** A client's public keys: inline (`jwks`) or published (`jwks_uri`), never both (RFC 7591 §2). */
export type ClientKeys = { jwks: JSONWebKeySet } | { jwksUri: string };

export const MAX_CLIENT_KEYS = 10;

// Members that only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4).
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
// 2048-bit RSA modulus: 256 bytes, 342 base64url characters.
const MIN_RSA_MODULUS_CHARS = 342;

function keyRefusal(key: unknown, index: number): string | undefined {
  const at = `jwks.keys[${index}]`;
  if (typeof key !== 'object' || key === null || Array.isArray(key)) return `${at} must be a JSON object (a JWK).`;
  const jwk = key as Record<string, unknown>;
  if (PRIVATE_MEMBERS.some((member) => member in jwk))
    return `${at} contains private or symmetric key material; publish public keys only.`;
  if (jwk.use !== undefined && jwk.use !== 'sig') return `${at}.use must be "sig".`;
  if (jwk.alg !== undefined && !ASSERTION_ALGS.includes(jwk.alg as (typeof ASSERTION_ALGS)[number]))
    return `${at}.alg must be ${ASSERTION_ALGS.join(' or ')}.`;
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid.length > 200))
    return `${at}.kid must be a string of at most 200 characters.`;
  if (jwk.kty === 'EC') {
    if (jwk.crv !== 'P-256') return `${at} must be a P-256 key (ES256).`;
    if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string') return `${at} lacks its x and y coordinates.`;
    return undefined;
  }
  if (jwk.kty === 'RSA') {
    if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') return `${at} lacks its n and e members.`;
    if (jwk.n.length < MIN_RSA_MODULUS_CHARS) return `${at} is an RSA key shorter than 2048 bits.`;
    return undefined;
  }
  return `${at}.kty must be "EC" (P-256) or "RSA".`;
}

/** Why a `jwks` value is not a usable set of public signing keys, or undefined. */
export function jwksRefusal(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'jwks must be a JSON Web Key Set: an object with a "keys" array.';
  const keys = (value as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) return 'jwks must have a non-empty "keys" array.';
  if (keys.length > MAX_CLIENT_KEYS) return `jwks must have at most ${MAX_CLIENT_KEYS} keys.`;
  for (const [index, key] of keys.entries()) {
    const refusal = keyRefusal(key, index);
    if (refusal) return refusal;
  }
  return undefined;
}

/**
 * The public keys a private_key_jwt client declares in its metadata (a registration or a Client ID
 * Metadata Document): `jwks` inline or `jwks_uri`, never both (RFC 7591 §2). Throws `refuse(reason)`
 * when they cannot be used; `missing` is the reason given when neither is there.
 */
export function declaredKeys(
  metadata: Record<string, unknown>,
  allowance: UrlAllowance,
  refuse: (reason: string) => Error,
  missing: string,
): ClientKeys {
  const { jwks, jwks_uri: jwksUri } = metadata;
  if (jwks !== undefined && jwksUri !== undefined) throw refuse('jwks and jwks_uri must not both be present.');
  if (jwks !== undefined) {
    const refusal = jwksRefusal(jwks);
    if (refusal) throw refuse(refusal);
    return { jwks: jwks as JSONWebKeySet };
  }
  if (typeof jwksUri !== 'string') throw refuse(missing);
  const refusal = clientUrlRefusal(jwksUri, allowance, 'jwks_uri');
  if (refusal) throw refuse(refusal);
  return { jwksUri };
}
