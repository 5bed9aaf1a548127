import { createHash, timingSafeEqual } from 'node:crypto';

/** An S256 challenge: base64url of a SHA-256, without padding (RFC 7636 §4.2). */
export const CODE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** Whether `verifier` is the one whose S256 challenge is `challenge`; in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'), 'ascii');
  const expected = Buffer.from(challenge, 'ascii');
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
