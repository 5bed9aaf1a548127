import { resolveOrigin } from '../../catalogue/locations.js';
import type { CatalogueSnapshot, SessionEntry } from '../../catalogue/read-model.js';
import { SearchQuerySchema } from '../../catalogue/schemas.js';
import { SearchArgumentError, searchStages } from '../../catalogue/search.js';
import { addDays, dateIn } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { frenchDay } from './dates.js';
import { decide, type Verdict } from './rules.js';
import type { EligibilityAnswer, EligibilityInput, EligibleSession } from './schemas.js';
import { SOURCES } from './sources.js';

export type Language = 'en' | 'fr';

/** How many sessions an answer lists: the first few that fit, as a start, not a search. */
const SESSIONS_LISTED = 5;

function summaryOf(v: Verdict, lang: Language): string {
  const day = (d: string) => (lang === 'fr' ? frenchDay(d) : d);
  const parts: string[] = [];
  if (lang === 'fr') {
    parts.push(
      v.givesPoints === 'yes'
        ? `Oui : un stage vous rend jusqu’à ${v.maxPoints} point${v.maxPoints > 1 ? 's' : ''}, dès le lendemain de son deuxième jour.`
        : v.givesPoints === 'no'
          ? v.earliestStart
            ? `Pas maintenant : un stage rendra jusqu’à ${v.maxPoints} point${v.maxPoints > 1 ? 's' : ''} s’il commence à partir du ${day(v.earliestStart)}.`
            : 'Non : un stage ne vous rendrait pas de points.'
          : 'Incertain : les textes ne tranchent pas votre cas (voir ci-dessous).',
    );
    if (v.deadline) parts.push(`Votre stage obligatoire doit être terminé au plus tard le ${day(v.deadline)}.`);
  } else {
    parts.push(
      v.givesPoints === 'yes'
        ? `Yes: a course gives back up to ${v.maxPoints} point${v.maxPoints > 1 ? 's' : ''}, from the day after its second day.`
        : v.givesPoints === 'no'
          ? v.earliestStart
            ? `Not now: a course gives back up to ${v.maxPoints} point${v.maxPoints > 1 ? 's' : ''} if it starts on or after ${v.earliestStart}.`
            : 'No: a course would give no points back.'
          : 'Uncertain: the texts leave this case open (see the rules).',
    );
    if (v.deadline) parts.push(`The compulsory course must end by ${v.deadline}.`);
  }
  return parts.join(' ');
}

/**
 * The first sessions near `near` that fit the answer: starting no earlier than a course can count,
 * and, under a 48N letter whose four months still run, ending by the deadline.
 */
function sessionsFor(snapshot: CatalogueSnapshot, v: Verdict, near: string, now: Date, today: string) {
  const from = v.earliestStart && v.earliestStart > today ? v.earliestStart : today;
  const openDeadline = v.deadline && v.deadline >= today ? v.deadline : undefined;
  // The search's own field rules decide what `near` may hold (letters, digits, a few signs).
  const parsed = SearchQuerySchema.safeParse({ near, from, ...(openDeadline ? { to: openDeadline } : {}), limit: 50 });
  if (!parsed.success) {
    const reason = parsed.error.issues[0]?.message ?? 'near must be a town, a postal code or lat,lng';
    throw new DomainError(400, 'invalid_parameters', reason, [{ name: 'near', reason }]);
  }
  const query = parsed.data;
  let found: { entries: SessionEntry[] };
  let place: string;
  try {
    place = resolveOrigin(near).label;
    found = searchStages(snapshot, query, now);
  } catch (err) {
    if (!(err instanceof SearchArgumentError)) throw err;
    throw new DomainError(400, 'invalid_parameters', err.message, [{ name: 'near', reason: err.reason }]);
  }
  const sessions: EligibleSession[] = [];
  for (const entry of found.entries) {
    const s = entry.view;
    // `to` bounds the first day; the course must also end within the four months.
    if (openDeadline && s.day2 > openDeadline) continue;
    sessions.push({
      id: s.id,
      day1: s.day1,
      day2: s.day2,
      city: s.centre.city,
      priceEuros: s.priceEuros,
      spotsAvailable: s.spotsAvailable,
      pointsFrom: addDays(s.day2, 1),
      bookingUrl: s.bookingUrl,
    });
    if (sessions.length === SESSIONS_LISTED) break;
  }
  return { sessions, near: place };
}

/**
 * Can this person take a course that gives points back, how many, from when, and by when must they?
 * Nothing of the input is kept or logged: the answer is computed and returned. Throws a DomainError
 * (400, naming each field at fault) for impossible, contradictory input or an unknown place.
 */
export function checkEligibility(
  snapshot: CatalogueSnapshot,
  input: EligibilityInput,
  now: Date,
  lang: Language = 'en',
): EligibilityAnswer {
  const today = dateIn(now);
  const v = decide(input, today);
  const answer: EligibilityAnswer = {
    givesPoints: v.givesPoints,
    maxPoints: v.maxPoints,
    ceiling: v.ceiling,
    earliestStart: v.earliestStart,
    deadline: v.deadline,
    nextCountableFrom: v.nextCountableFrom,
    summary: summaryOf(v, lang),
    rules: v.findings.map((f) => ({
      code: f.code,
      status: f.status,
      text: f[lang],
      sources: f.sources.map((key) => SOURCES[key]),
    })),
  };
  if (input.near && !input.letter48si) Object.assign(answer, sessionsFor(snapshot, v, input.near, now, today));
  return answer;
}
