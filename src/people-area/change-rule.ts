import { startInstant } from '../core/clock.js';

const DAY_MS = 86_400_000;

/**
 * Whether a person may still change the date of a course starting on `day1` at `startTime` in
 * `timeZone`: until `cutoffDays` whole days (of 24 hours) before its start, by the service's clock.
 * The change itself reads the same rule from the row in the database (repository/change.ts).
 */
export function changeAllowed(
  session: { day1: string; startTime: string },
  timeZone: string,
  now: Date,
  cutoffDays: number,
): boolean {
  const starts = startInstant(session.day1, session.startTime, timeZone);
  return Number.isFinite(starts) && starts - cutoffDays * DAY_MS > now.getTime();
}
