import { WriteRefused } from './write-refused.js';

/** What PostgreSQL says about a failed statement (SQLSTATE, constraint, detail), found through `cause`. */
export interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
}

/** The drivers wrap PostgreSQL's error (drizzle's query error, pg's, PGlite's): the first SQLSTATE down the causes. */
export function pgError(err: unknown): PgError | undefined {
  let current = err as { code?: unknown; constraint?: unknown; detail?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && current; i++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code))
      return {
        code: current.code,
        constraint: typeof current.constraint === 'string' ? current.constraint : undefined,
        detail: typeof current.detail === 'string' ? current.detail : undefined,
      };
    current = current.cause as typeof current;
  }
  return undefined;
}

// Unique constraints, and the field each one is about.
const UNIQUE_FIELDS: Record<string, string> = {
  centres_slug_unique: 'slug',
  centres_agrement_number_unique: 'agrementNumber',
  stage_sessions_course_number_unique: 'courseNumber',
  reservations_reference_unique: 'reference',
};

/**
 * Unique violations (another record holds that slug, approval or course number) → 409 naming the
 * field; places that reservations hold (CHECK stage_sessions_places_held) → 409 saying how many may be for sale.
 */
export function refusalFor(err: unknown): WriteRefused | undefined {
  const pg = pgError(err);
  if (pg?.code === '23514' && pg.constraint === 'stage_sessions_places_held')
    return new WriteRefused(
      409,
      'places_held_by_reservations',
      'Places on sale plus the places held by reservations made here would exceed the capacity. Read the session (its heldHere), then lower spotsAvailable or keep the capacity; a relative change (POST …/places) never needs to know.',
      [{ name: 'capacity', reason: 'places on sale plus places held here must fit in it' }],
    );
  if (pg?.code !== '23505') return undefined;
  const name = (pg.constraint && UNIQUE_FIELDS[pg.constraint]) ?? 'id';
  return new WriteRefused(409, 'conflict', `Another record already has this ${name}.`, [
    { name, reason: `${name} is already used by another record` },
  ]);
}
