import { randomInt } from 'node:crypto';
import { secretHash } from '../core/secrets.js';

// Consonants only: no word can form, and none is mistaken for another or for a digit read aloud
// (no I/L/1, O/0, U/V).
const ALPHABET = 'BCDFGHJKMNPQRSTWXZ';
const LENGTH = 8;

/**
 * A code the agent reads or shows to the person, who types it on the claim's page: 8 letters
 * (18⁸ ≈ 11 billion), shown as XXXX-XXXX. Only its hash is stored; with at most
 * MAX_WRONG_CODES tries per claim, guessing it is hopeless.
 */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/** What the person typed, as compared: letters only, upper case (spaces, dashes, case forgiven). */
export function normaliseUserCode(input: string): string {
  return input.toUpperCase().replace(/[^A-Z]/g, '');
}

/** What is stored of a code. */
export function userCodeHash(code: string): string {
  return secretHash(normaliseUserCode(code));
}
