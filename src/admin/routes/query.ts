import { z } from 'zod';
import { isDay } from '../../core/clock.js';

/*
 * Query parameters of the admin lists. Each is checked to be a value the database can take, not
 * only one of the right shape: a date "2026-13-45", a year 0000 or a cursor whose id is 36 dashes
 * once passed the patterns and failed in the query (a 500). Now each is a 400 naming it.
 */

/** An empty parameter (`?from=`) counts as absent. */
export const blank = (v: unknown) => (v === '' ? undefined : v);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function dateQuery(name: string) {
  const error = `${name} must be a date YYYY-MM-DD`;
  return z.preprocess(blank, z.iso.date({ error }).refine(isDay, { error }).optional());
}

export function limitQuery(max: number, fallback: number) {
  const error = `limit must be an integer from 1 to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(1, { error }).max(max, { error }).default(fallback);
}

/**
 * A page's `nextCursor`, `<key>.<id>`, given back: its key read by `keyOf` (undefined when it is not
 * one), its id a UUID.
 */
export function cursorQuery<T>(keyOf: (text: string) => T | undefined) {
  const message = 'cursor must be the nextCursor of a previous page';
  return z
    .string({ error: message })
    .transform((text, ctx) => {
      const dot = text.lastIndexOf('.');
      const key = dot > 0 ? keyOf(text.slice(0, dot)) : undefined;
      const id = text.slice(dot + 1);
      if (key === undefined || !UUID.test(id)) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return { key, id: id.toLowerCase() };
    })
    .optional()
    .describe('The nextCursor of the previous page.');
}
