import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { dateIn } from '../../catalogue/clock.js';
import { argumentsObject } from '../../catalogue/fields.js';
import { StageSessionSchema } from '../../catalogue/schemas.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { BOOKING_NOTE, READ_ONLY, result, type ToolContext, toolError } from '../context.js';
import { formatPrice } from '../format.js';

const Input = argumentsObject({
  sessionId: z
    .uuid({ error: 'sessionId must be a session id (a UUID), as given by search_stages' })
    .describe('The id of a session, as returned by search_stages or get_centre.'),
});

const Output = z.object({
  status: z
    .enum(['available', 'full', 'past'])
    .describe('"available": places left and not started; "full": no place left; "past": the course has already begun.'),
  bookable: z.boolean().describe('True when the human user can book it now on bookingUrl.'),
  message: z.string().describe('The situation in one sentence.'),
  spotsAvailable: z.int().min(0).describe('Remaining places right now.'),
  priceEuros: z.number().describe('Effective price in euros.'),
  bookingUrl: z.url().describe('Where the human user finalises the booking.'),
  courseNumber: z.string().describe('Course identification number, which adverts must show by law.'),
  checkedAt: z.iso.datetime({ offset: true }).describe('When this answer was computed.'),
  session: StageSessionSchema,
});

export function registerCheckAvailability(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'check_availability',
    {
      title: 'Check a session’s places and price now',
      description: `Check, right now, whether one course session can still be booked: current remaining places, effective price, status (available, full or past), its course identification number and the centre. Use it just before sending a user to book, since places change in real time. Takes the session id from search_stages or get_centre. ${BOOKING_NOTE}`,
      inputSchema: cachedJsonSchema(Input),
      outputSchema: cachedJsonSchema(Output),
      annotations: { title: 'Check availability', ...READ_ONLY },
    },
    async ({ sessionId }) => {
      const entry = ctx.catalogue.snapshot.sessionsById.get(sessionId.toLowerCase());
      if (!entry) {
        return toolError(
          `No session has the id ${sessionId}. It may have been removed; use search_stages to find current sessions.`,
        );
      }
      const s = entry.view;
      const now = ctx.clock.now();
      // "Today" is the date where the course takes place (overseas departments have their own zone).
      const today = dateIn(now, entry.centre.timeZone);
      const status = s.day1 < today ? 'past' : s.spotsAvailable === 0 ? 'full' : 'available';
      const when = `on ${s.day1} and ${s.day2}, ${s.startTime}–${s.endTime}, at ${s.centre.name} (${s.centre.city})`;
      const message =
        status === 'past'
          ? `This session began on ${s.day1}; it can no longer be booked. Use search_stages to find a later one.`
          : status === 'full'
            ? `This session ${when} is full: no place left. Use search_stages for another date or centre.`
            : `${s.spotsAvailable} place${s.spotsAvailable === 1 ? '' : 's'} left for the session ${when}, at ${formatPrice(s.priceEuros)}.`;
      const out = {
        status,
        bookable: status === 'available',
        message,
        spotsAvailable: s.spotsAvailable,
        priceEuros: s.priceEuros,
        bookingUrl: s.bookingUrl,
        courseNumber: entry.record.courseNumber,
        checkedAt: now.toISOString(),
        session: s,
      } as const;
      const text = `${message}\nCourse number ${out.courseNumber}; centre approval ${s.centre.agrementNumber}.${status === 'available' ? `\nBook: ${s.bookingUrl}\n${BOOKING_NOTE}` : ''}`;
      return result(out, text);
    },
  );
}
