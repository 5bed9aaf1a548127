import { departmentsOf } from './departments.js';
import {
  type CentreEntry,
  type CentreRecord,
  centreEntry,
  type SessionEntry,
  type SessionRecord,
  sessionEntry,
} from './entries.js';
import type { Indexes } from './indexes.js';
import { SessionChunks } from './session-chunks.js';
import { compareSessions } from './session-order.js';
import { ShardedMap } from './sharded-map.js';
import { groupBy } from './sorted-lists.js';
import type { UrlBuilder } from './url-builder.js';

/** Work between two turns of the event loop in a full build: a few milliseconds. */
const SLICE = 2000;

/** The whole build, as steps of about SLICE sessions each. */
export function* buildSteps(
  centres: readonly CentreRecord[],
  sessions: readonly SessionRecord[],
  urls: UrlBuilder,
): Generator<void, Indexes> {
  const centresById = new Map<string, CentreEntry>();
  const centresBySlug = new Map<string, CentreEntry>();
  for (const c of centres) {
    const entry = centreEntry(c, urls);
    centresById.set(c.id, entry);
    centresBySlug.set(c.slug, entry);
  }
  // Rows come sorted from the database (see repository.ts); sorting here is for other callers.
  let ordered = sessions;
  for (let i = 1; i < ordered.length; i++) {
    if (compareSessions(ordered[i - 1] as SessionRecord, ordered[i] as SessionRecord) > 0) {
      ordered = [...sessions].sort(compareSessions);
      break;
    }
  }
  yield;
  const all: SessionEntry[] = [];
  const listed: SessionEntry[] = [];
  for (let i = 0; i < ordered.length; i++) {
    if (i % SLICE === SLICE - 1) yield;
    const s = ordered[i] as SessionRecord;
    const centre = centresById.get(s.centreId);
    if (!centre) continue; // the foreign key makes this impossible; never serve a session without its centre
    const entry = sessionEntry(s, centre);
    all.push(entry);
    if (!entry.cancelled) listed.push(entry);
  }
  yield;
  const sessionsById = ShardedMap.from(all.map((e) => [e.record.id, e] as const));
  yield;
  const sessionsByCentre = ShardedMap.from(groupBy(listed, (e) => e.record.centreId));
  return {
    sessions: SessionChunks.of(listed),
    departments: departmentsOf(listed),
    sessionsByCentre,
    sessionsById,
    centresById,
    centresBySlug,
  };
}
