import { addDays, dateIn } from '../core/clock.js';
import type { CatalogueSnapshot, SessionChunks } from './read-model.js';

/**
 * The session starts around an instant, in ms since the epoch: a listed session leaves the lists and
 * stops being bookable at its start, so any answer about the catalogue holds from `last` to `next`
 * (the day's date aside). `next` is also the end of a centre's approval when that comes first.
 */
export interface StartTurns {
  /** The latest start at or before the instant, within the past day; -Infinity when none. */
  readonly last: number;
  /** The first start after the instant; Infinity when none. */
  readonly next: number;
}

interface Memo {
  from: number;
  turns: StartTurns;
}

const TURNS = Symbol('start turns');

/**
 * The starts around `nowMs` among the snapshot's listed sessions. Kept by the snapshot (which is
 * immutable) and recomputed only once `nowMs` reaches the next start: a few thousand sessions read
 * once per start and per catalogue version, never per request.
 */
export function startTurns(snapshot: CatalogueSnapshot, nowMs: number): StartTurns {
  const memo = snapshot.derived.get<Memo>(TURNS, () => ({ from: Number.POSITIVE_INFINITY, turns: NONE }));
  if (memo.from <= nowMs && nowMs < memo.turns.next) return memo.turns;
  const starts = scan(snapshot.sessions, nowMs);
  // A centre whose approval ends leaves every answer then, as a session that starts leaves the lists.
  const ending = snapshot.nextApprovalEnd;
  memo.turns = ending > nowMs && ending < starts.next ? { last: starts.last, next: ending } : starts;
  memo.from = nowMs;
  return memo.turns;
}

const NONE: StartTurns = { last: Number.NEGATIVE_INFINITY, next: Number.NEGATIVE_INFINITY };

/**
 * Sessions are in local (day1, startTime) order, zones mixed: the scan starts a day before Paris's
 * date (no French zone is further behind) and stops two days past the best next start's UTC date,
 * after which no zone (all within 14 hours of UTC) can start earlier.
 */
function scan(sessions: SessionChunks, nowMs: number): StartTurns {
  let last = Number.NEGATIVE_INFINITY;
  let next = Number.POSITIVE_INFINITY;
  let stopAt = '';
  for (const e of sessions.onOrAfter(addDays(dateIn(new Date(nowMs)), -1))) {
    if (stopAt !== '' && e.record.day1 >= stopAt) break;
    const s = e.startsAt;
    if (s <= nowMs) {
      if (s > last) last = s;
    } else if (s < next) {
      next = s;
      stopAt = addDays(new Date(s).toISOString().slice(0, 10), 2);
    }
  }
  return { last, next };
}
