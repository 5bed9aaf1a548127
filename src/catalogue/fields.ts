import { z } from 'zod';

/*
 * Builders for the input fields REST and MCP share, so that every field of a kind is checked
 * and explained the same way, naming itself in each message.
 */

/** Non-empty text, trimmed, at most `max` characters. */
export function textField(name: string, max: number, what = 'a text') {
  return z
    .string({ error: `${name} must be ${what}` })
    .trim()
    .min(1, { error: `${name} must not be empty` })
    .max(max, { error: `${name} must be at most ${max} characters` });
}

/** A count from 1 to `max`, `fallback` when absent. */
export function countField(name: string, max: number, fallback: number) {
  const message = `${name} must be an integer from 1 to ${max}`;
  return z.int({ error: message }).min(1, { error: message }).max(max, { error: message }).default(fallback);
}

/** true or false, false when absent. */
export function flagField(name: string) {
  return z.boolean({ error: `${name} must be true or false` }).default(false);
}
