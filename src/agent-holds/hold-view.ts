import { z } from 'zod';
import type { placeHolds } from '../db/schema.js';
import { completePath } from './policy.js';

export const HOLD_STATES = ['active', 'completed', 'released', 'expired'] as const;

/**
 * A hold as the agent that made it sees it: the session, the state, the times and the page where
 * the person books; never anything of the person. The same shape on MCP and REST.
 */
export const HoldSchema = z
  .object({
    holdId: z.string().describe('The hold, for reading its state or releasing it.'),
    sessionId: z.uuid().describe('The session whose place is held.'),
    state: z
      .enum(HOLD_STATES)
      .describe(
        'active: the place is held; completed: the person booked it; released: given back (by you, or the session was cancelled); expired: given back at expiresAt.',
      ),
    expiresAt: z.iso.datetime().describe('When an active hold gives its place back by itself.'),
    completeUrl: z
      .url()
      .describe(
        'Give this page to the person: they enter their details there and book the held place themselves. Once the hold has ended it is the ordinary booking form.',
      ),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'Hold' });

export type Hold = z.output<typeof HoldSchema>;
export type HoldRow = typeof placeHolds.$inferSelect;

/** The hold as given back at `now`: an active hold past its time is expired, given back or about to be. */
export function holdView(row: HoldRow, baseUrl: string, now: Date): Hold {
  const state = row.state === 'active' && row.expiresAt <= now ? 'expired' : (row.state as Hold['state']);
  return {
    holdId: row.id,
    sessionId: row.sessionId,
    state,
    expiresAt: row.expiresAt.toISOString(),
    completeUrl: `${baseUrl}${completePath(row.sessionId, row.id)}`,
    createdAt: row.createdAt.toISOString(),
  };
}
