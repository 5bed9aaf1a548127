import { randomInt } from 'node:crypto';
import { newSecret } from '../core/secrets.js';

// Crockford's base 32: no I, L, O or U, so that nothing read aloud or off a phone is ambiguous.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A reservation's reference, `SRP-7K4Q-2M9X`: 40 random bits, short enough to read on the phone. */
export function newReference(): string {
  let s = '';
  for (let i = 0; i < 8; i++) s += ALPHABET[randomInt(32)];
  return `SRP-${s.slice(0, 4)}-${s.slice(4)}`;
}

/** A reference as people type it back: any case, spaces or missing dashes, O for 0, I and L for 1. */
export function normaliseReference(input: string): string | undefined {
  const s = input.toUpperCase().replace(/[\s-]/g, '').replace(/^SRP/, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return /^[0-9A-HJKMNP-TV-Z]{8}$/.test(s) ? `SRP-${s.slice(0, 4)}-${s.slice(4)}` : undefined;
}

/** The secret of a private link: 128 random bits, 22 characters of base64url. */
export function newLinkToken(): string {
  return newSecret(16);
}

export const LINK_TOKEN = /^[A-Za-z0-9_-]{22}$/;

export { secretHash } from '../core/secrets.js';
