import type { CatalogueSnapshot, SessionEntry } from '../catalogue/read-model.js';
import { LIMIT_MAX, SearchQuerySchema } from '../catalogue/schemas.js';
import { searchStages } from '../catalogue/search.js';
import { sessionStatus } from '../catalogue/session-status.js';

/** How many sessions of the booked centre, and of the centres around, the change page offers at most. */
export const SAME_CENTRE_MAX = 8;
export const NEARBY_MAX = 12;
/** How far around the booked centre other centres are looked for (km, as the crow flies). */
export const NEARBY_RADIUS_KM = 60;

/** A session one may move to: with its distance from the booked centre (0 at the same centre). */
export interface ChangeCandidate {
  entry: SessionEntry;
  distanceKm: number;
}

export interface ChangeCandidates {
  sameCentre: ChangeCandidate[];
  nearby: ChangeCandidate[];
}

/**
 * The sessions a reservation on `current` may move to, from the catalogue's read model: the booked
 * centre's sessions with places first (soonest first), then other centres' within
 * NEARBY_RADIUS_KM, nearest first, through the one search (searchStages, `near` the centre's
 * position). Never the current session, nor one in `excluded` (sessions the person holds already).
 * Whether a place is still there is decided by the change itself.
 */
export function changeCandidates(
  snapshot: CatalogueSnapshot,
  current: SessionEntry,
  now: Date,
  excluded: ReadonlySet<string>,
): ChangeCandidates {
  const centreId = current.record.centreId;
  const wanted = (e: SessionEntry) =>
    e.record.id !== current.record.id && !excluded.has(e.record.id) && sessionStatus(e, now) === 'available';
  const sameCentre = (snapshot.sessionsByCentre.get(centreId) ?? [])
    .filter(wanted)
    .slice(0, SAME_CENTRE_MAX)
    .map((entry) => ({ entry, distanceKm: 0 }));
  const { lat, lng } = current.centre.view;
  const query = SearchQuerySchema.parse({
    near: `${lat},${lng}`,
    radiusKm: NEARBY_RADIUS_KM,
    sort: 'distance',
    // Nearest first, the booked centre's own sessions come first in this search too: one full page
    // leaves room for the others unless that centre alone lists a hundred sessions.
    limit: LIMIT_MAX,
  });
  const found = searchStages(snapshot, query, now);
  const nearby: ChangeCandidate[] = [];
  found.entries.forEach((entry, i) => {
    if (entry.record.centreId === centreId || !wanted(entry) || nearby.length >= NEARBY_MAX) return;
    nearby.push({ entry, distanceKm: found.distances?.[i] ?? 0 });
  });
  return { sameCentre, nearby };
}
