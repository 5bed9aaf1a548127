import { z } from 'zod';
import { formatPrice } from './price.js';
import type { CatalogueSnapshot } from './read-model.js';
import { StageSessionSchema } from './schemas.js';
import { sessionStatus } from './session-status.js';

export const SessionAvailabilitySchema = z
  .object({
    status: z
      .enum(['available', 'full', 'past', 'cancelled'])
      .describe(
        '"available": places left and not started; "full": no place left; "past": the course has already begun; "cancelled": the centre cancelled it.',
      ),
    bookable: z.boolean().describe('True when the human user can book it now on bookingUrl.'),
    message: z.string().describe('The situation in one sentence.'),
    spotsAvailable: z.int().min(0).describe('Remaining places right now.'),
    priceEuros: z.number().describe('Effective price in euros.'),
    bookingUrl: z.url().describe('Where the human user finalises the booking.'),
    courseNumber: z.string().describe('Course identification number, which adverts must show by law.'),
    checkedAt: z.iso.datetime({ offset: true }).describe('When this answer was computed.'),
    session: StageSessionSchema,
  })
  .meta({
    id: 'SessionAvailability',
    description: 'One session right now: whether it can be booked, its places, price and course number.',
  });

export type SessionAvailability = z.output<typeof SessionAvailabilitySchema>;

/**
 * One session's situation at `now`: what GET /api/stages/{id} answers and the check_availability
 * tool returns. Undefined when no session has that id.
 */
export function sessionAvailability(
  snapshot: CatalogueSnapshot,
  sessionId: string,
  now: Date,
): SessionAvailability | undefined {
  const entry = snapshot.sessionsById.get(sessionId.toLowerCase());
  if (!entry) return undefined;
  const s = entry.view;
  const status = sessionStatus(entry, now);
  const when = `on ${s.day1} and ${s.day2}, ${s.startTime}–${s.endTime}, at ${s.centre.name} (${s.centre.city})`;
  const message =
    status === 'cancelled'
      ? `This session ${when} was cancelled by the centre; it cannot be booked. Use search_stages to find another one.`
      : status === 'past'
        ? `This session began on ${s.day1}; it can no longer be booked. Use search_stages to find a later one.`
        : status === 'full'
          ? `This session ${when} is full: no place left. Use search_stages for another date or centre.`
          : `${s.spotsAvailable} place${s.spotsAvailable === 1 ? '' : 's'} left for the session ${when}, at ${formatPrice(s.priceEuros)}.`;
  return {
    status,
    bookable: status === 'available',
    message,
    spotsAvailable: s.spotsAvailable,
    priceEuros: s.priceEuros,
    bookingUrl: s.bookingUrl,
    courseNumber: entry.record.courseNumber,
    checkedAt: now.toISOString(),
    session: s,
  };
}
