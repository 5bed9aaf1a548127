import { dateIn } from '../core/clock.js';
import type { SessionEntry } from './read-model.js';

export type SessionStatus = 'available' | 'full' | 'past' | 'cancelled';

/**
 * Where a session stands at `now`: cancelled by its centre, begun ("today" is the date where the
 * course takes place: overseas departments have their own zone), full, or open for booking.
 */
export function sessionStatus(entry: SessionEntry, now: Date): SessionStatus {
  if (entry.cancelled) return 'cancelled';
  if (entry.record.day1 < dateIn(now, entry.centre.timeZone)) return 'past';
  return entry.record.spotsAvailable <= 0 ? 'full' : 'available';
}
