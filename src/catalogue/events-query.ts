import { z } from 'zod';
import { departmentField } from './fields.js';
import { STREAM_MAX_DEPTS, STREAM_MAX_SESSIONS, type StreamFilter } from './stream-filter.js';

/** A parameter given once or repeated (`?dept=69&dept=42`), as a list; optional. */
function repeated<T extends z.ZodType>(one: T, name: string, max: number) {
  return z
    .preprocess(
      (v) => (Array.isArray(v) ? v : [v]),
      z.array(one).max(max, { error: `at most ${max} ${name} values per stream` }),
    )
    .optional();
}

const sessionId = z
  .uuid({ error: 'sessionId must be a session id (a UUID), as given in the data of GET /api/stages' })
  .transform((id) => id.toLowerCase());

export const EventsQuery = z.object({
  lastEventId: z
    .string()
    .regex(/^\d{1,15}$/, { error: 'lastEventId must be the id of an event of this stream (a version number)' })
    .optional()
    .describe('Where to resume, for clients that cannot send the Last-Event-ID header.'),
  sessionId: repeated(sessionId, 'sessionId', STREAM_MAX_SESSIONS).describe(
    `Only the changes of this session (repeat the parameter for up to ${STREAM_MAX_SESSIONS}). Any session id is taken, even one that no longer exists (a stream resumed after its removal still hears of it).`,
  ),
  dept: repeated(departmentField('dept'), 'dept', STREAM_MAX_DEPTS).describe(
    `Only the changes of the sessions of this department's centres (a department code: 69, 2A, 974; repeat for up to ${STREAM_MAX_DEPTS}). With sessionId too, a change is sent when either matches.`,
  ),
});

/** The filter a validated query asks for; undefined when it names nothing (the whole stream). */
export function filterOf(query: z.output<typeof EventsQuery>): StreamFilter | undefined {
  const sessionIds = new Set(query.sessionId ?? []);
  const depts = new Set((query.dept ?? []).filter((d): d is string => d !== undefined));
  return sessionIds.size === 0 && depts.size === 0 ? undefined : { sessionIds, depts };
}
