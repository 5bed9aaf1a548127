import { partitionPoint, type SessionEntry } from './read-model.js';

export type SessionStatus = 'available' | 'full' | 'past' | 'cancelled';

/** Whether a session has begun at `nowMs`: from its first day's start time, in its centre's zone. */
export function hasBegun(entry: SessionEntry, nowMs: number): boolean {
  return !(entry.startsAt > nowMs);
}

/**
 * Where a session stands at `now`: cancelled by its centre, begun (from day1 at startTime where the
 * course takes place: overseas departments have their own zone), full, or open for booking.
 */
export function sessionStatus(entry: SessionEntry, now: Date): SessionStatus {
  if (entry.cancelled) return 'cancelled';
  if (hasBegun(entry, now.getTime())) return 'past';
  return entry.record.spotsAvailable <= 0 ? 'full' : 'available';
}

/**
 * Position of the first session not begun at `nowMs` in one centre's or one department's list:
 * one zone, so starts follow the list's order (days, then HH:MM).
 */
export function firstUpcoming(list: readonly SessionEntry[], nowMs: number): number {
  return partitionPoint(list, (e) => hasBegun(e, nowMs));
}
