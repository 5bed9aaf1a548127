import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 32 random bytes: 256 bits, as RFC 7591 deployments and design.md §7 ask for. */
const SECRET_BYTES = 32;
const CLIENT_ID_BYTES = 16;

export const CLIENT_ID_PATTERN = /^cl_[A-Za-z0-9_-]{22}$/;

export function newClientId(): string {
  return `cl_${randomBytes(CLIENT_ID_BYTES).toString('base64url')}`;
}

export function newClientSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

/**
 * SHA-256 of the secret. A slow password hash (scrypt, argon2) exists to resist guessing of
 * low-entropy human passwords; these secrets are 256 random bits, so a stolen hash cannot be
 * reversed by guessing, and a fast hash keeps the token endpoint cheap.
 */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

// Compared against when the client is unknown, so that an unknown client_id and a wrong secret
// take the same time.
const DUMMY_HASH = hashSecret(newClientSecret());

/** Constant-time comparison of a presented secret with a stored hash (or none, for an unknown client). */
export function secretMatches(presented: string, storedHash: string | undefined): boolean {
  const actual = Buffer.from(hashSecret(presented), 'utf8');
  const expected = Buffer.from(storedHash ?? DUMMY_HASH, 'utf8');
  const equal = actual.length === expected.length && timingSafeEqual(actual, expected);
  return equal && storedHash !== undefined;
}
