import { createHash, randomBytes } from 'node:crypto';

/** A secret for a link or a session: `bytes` random bytes in base64url. */
export function newSecret(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * What is stored of a secret: its SHA-256. The secrets are at least 128 random bits, so a fast
 * hash is enough (nobody can search that space), and lookups by hash stay one index probe.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
