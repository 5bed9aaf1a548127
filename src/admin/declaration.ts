import { departmentByCode } from '../catalogue/geography.js';
import { addDays, type Clock, dateIn, METROPOLITAN_TIME_ZONE } from '../core/clock.js';
import { WriteRefused } from '../db/write-refused.js';

/*
 * The prefecture rule of the 2024 reform (arrêté du 26 juin 2012 as amended by the arrêté du 31 mai
 * 2024): each course is declared to the prefecture at least 10 calendar days before it starts. A
 * session that is created, moved to another day1, or given another declaredOn less than 10 days
 * before its day1 must therefore say when it was declared, and that day must be at least 10 days
 * before day1. Sessions already stored are not refused for what they lack: a centre must always be
 * able to change the places, price or times of a course in its last days. Days are counted in the
 * centre's own zone, from the service clock's today (a Réunion centre's today is not Paris's).
 */

/** Calendar days between the declaration and day1, at least. */
export const DECLARATION_DAYS = 10;

/** The rule as the answers name it. */
const RULE = `a course is declared to the prefecture at least ${DECLARATION_DAYS} calendar days before its first day (arrêté du 26 juin 2012 as amended by the arrêté du 31 mai 2024)`;

/** Today (YYYY-MM-DD) in the zone of a centre of department `deptCode`. */
export function todayFor(clock: Clock, deptCode: string): string {
  return dateIn(clock.now(), departmentByCode(deptCode)?.timeZone ?? METROPOLITAN_TIME_ZONE);
}

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export interface DeclaredSession {
  day1: string;
  declaredOn: string | null;
  status: string;
}

/**
 * Why the declaration of `session` is refused on `today` (the centre's), or undefined when it is
 * not. `stored` is the session as stored before this write (undefined for a new one): the rule is
 * checked when the write creates the session, moves its day1 or changes its declaredOn.
 */
export function declarationIssue(
  session: DeclaredSession,
  today: string,
  stored: { day1: string; declaredOn: string | null } | undefined,
): string | undefined {
  const changed = !stored || stored.day1 !== session.day1 || stored.declaredOn !== session.declaredOn;
  if (!changed) return undefined;
  const { day1, declaredOn } = session;
  if (declaredOn !== null && declaredOn > today && (!stored || stored.declaredOn !== declaredOn))
    return `declaredOn (${declaredOn}) is in the future (today is ${today} at the centre): give the day the course was declared to the prefecture`;
  if (session.status !== 'scheduled') return undefined;
  const daysLeft = daysBetween(today, day1);
  // A course that has already begun is a record of the past, not a course put on sale.
  if (daysLeft < 0 || daysLeft >= DECLARATION_DAYS) return undefined;
  const latest = addDays(day1, -DECLARATION_DAYS);
  if (declaredOn === null)
    return `declaredOn is required: this session starts on ${day1}, in ${daysLeft} day(s), and ${RULE}; give the day it was declared, on or before ${latest}`;
  if (declaredOn > latest)
    return `declaredOn must be on or before ${latest}: ${RULE}, and this session starts on ${day1}`;
  return undefined;
}

/** The refusal of a single write (PUT, PATCH) for the reason declarationIssue gave. */
export function declarationRefused(reason: string): WriteRefused {
  return new WriteRefused(422, 'prefecture_declaration', `declaredOn: ${reason}.`, [{ name: 'declaredOn', reason }]);
}
