import { z } from 'zod';

/** The stored search, as given back (plain values: the input's checks ran when it was made). */
const WatchSearchSchema = z
  .object({
    city: z.string().optional(),
    dept: z.string().optional(),
    near: z.string().optional(),
    radiusKm: z.number().optional(),
    from: z.string().optional(),
    to: z.string().optional(),
    maxPrice: z.number().optional(),
  })
  .meta({ id: 'WatchSearch' });

/**
 * One alert as the agent that made it sees it: what it watches and its state, never the person's
 * email or anything else of theirs. The same shape on MCP (`watches`) and REST (/api/watches).
 */
export const WatchSchema = z
  .object({
    id: z.uuid().describe('The alert id, for removing it.'),
    sessionId: z.uuid().nullable().describe('The session watched for a freed place; null for a search.'),
    search: WatchSearchSchema.nullable().describe('The search watched for new sessions; null for a session.'),
    confirmed: z.boolean().describe('Running (always true for an agent’s alert: the person’s consent is the opt-in).'),
    endsAt: z.iso.datetime().describe('When it ends by itself.'),
    lastSentAt: z.iso.datetime().nullable().describe('When the person was last emailed for it.'),
  })
  .meta({ id: 'Watch' });

export type Watch = z.output<typeof WatchSchema>;

export const WatchListSchema = z
  .object({ watches: z.array(WatchSchema).describe('This claim’s running alerts, soonest to end first.') })
  .meta({ id: 'WatchList' });
