import { updateDepartments } from './departments.js';
import {
  type CentreEntry,
  type CentreRecord,
  centreEntry,
  type SessionEntry,
  type SessionRecord,
  sessionEntry,
} from './entries.js';
import type { Indexes } from './indexes.js';
import { groupChanges } from './sorted-lists.js';
import type { UrlBuilder } from './url-builder.js';

/** What one catalogue version (or a run of them) changed, as the database now holds it. */
export interface CatalogueDelta {
  version: number;
  updatedAt: Date;
  /** Changed centres: the record, or null when deleted. */
  centres: ReadonlyMap<string, CentreRecord | null>;
  /**
   * Changed sessions: the record, or null when deleted. Must include every session of a changed
   * centre (their views embed the centre).
   */
  sessions: ReadonlyMap<string, SessionRecord | null>;
}

/** Changed sessions serialised between two turns of the event loop when a delta is applied in slices. */
const SLICE = 1000;

/**
 * The indexes of `previous` with `delta` applied, as steps of about SLICE changed sessions each (an
 * import of 5,000 sessions took 80 ms in one go): re-serialises only the changed sessions and
 * copies only the lists (and chunks of the list of all) they sit in; every untouched list, chunk,
 * map and shard is shared. `previous` is
 * immutable, so the steps may run across turns of the event loop.
 */
export function* applySteps(previous: Indexes, delta: CatalogueDelta, urls: UrlBuilder): Generator<void, Indexes> {
  const touchedDepts = new Set<string>();
  const { centresById, centresBySlug } = applyCentres(previous, delta, urls, touchedDepts);
  const { removed, added, byIdChanges } = yield* sessionChanges(previous, centresById, delta, touchedDepts);
  return {
    sessions: previous.sessions.with(removed, added),
    departments: updateDepartments(previous.departments, removed, added, touchedDepts, delta.version),
    sessionsByCentre:
      removed.length + added.length > 0
        ? previous.sessionsByCentre.with(
            groupChanges(previous.sessionsByCentre, removed, added, (e) => e.record.centreId),
          )
        : previous.sessionsByCentre,
    sessionsById: byIdChanges.size > 0 ? previous.sessionsById.with(byIdChanges) : previous.sessionsById,
    centresById,
    centresBySlug,
  };
}

/** The centre maps with the delta's centres replaced or removed (shared when none changed). */
function applyCentres(previous: Indexes, delta: CatalogueDelta, urls: UrlBuilder, touchedDepts: Set<string>) {
  if (delta.centres.size === 0) return { centresById: previous.centresById, centresBySlug: previous.centresBySlug };
  const byId = new Map(previous.centresById);
  const bySlug = new Map(previous.centresBySlug);
  for (const [id, record] of delta.centres) {
    const old = byId.get(id);
    if (old) {
      touchedDepts.add(old.view.deptCode);
      if (bySlug.get(old.view.slug) === old) bySlug.delete(old.view.slug);
      byId.delete(id);
    }
    if (record) {
      const entry = centreEntry(record, urls);
      touchedDepts.add(entry.view.deptCode);
      byId.set(id, entry);
      bySlug.set(entry.view.slug, entry);
    }
  }
  return { centresById: byId as ReadonlyMap<string, CentreEntry>, centresBySlug: bySlug };
}

/** The listed sessions to remove and add, and the by-id changes, of the delta's sessions. */
function* sessionChanges(
  previous: Indexes,
  centresById: ReadonlyMap<string, CentreEntry>,
  delta: CatalogueDelta,
  touchedDepts: Set<string>,
) {
  const removed: SessionEntry[] = [];
  const added: SessionEntry[] = [];
  const byIdChanges = new Map<string, SessionEntry | undefined>();
  // A centre gone takes its sessions with it (the foreign key cascades), logged or not.
  const changedSessions = new Map(delta.sessions);
  for (const [id, record] of delta.centres) {
    if (record) continue;
    for (const e of previous.sessionsByCentre.get(id) ?? [])
      if (!changedSessions.has(e.record.id)) changedSessions.set(e.record.id, null);
  }
  let done = 0;
  for (const [id, record] of changedSessions) {
    if (++done % SLICE === 0) yield;
    const old = previous.sessionsById.get(id);
    if (old) {
      touchedDepts.add(old.centre.view.deptCode);
      if (!old.cancelled) removed.push(old);
    }
    const centre = record ? centresById.get(record.centreId) : undefined;
    if (record && centre) {
      const entry = sessionEntry(record, centre);
      touchedDepts.add(centre.view.deptCode);
      byIdChanges.set(id, entry);
      if (!entry.cancelled) added.push(entry);
    } else {
      byIdChanges.set(id, undefined);
    }
  }
  return { removed, added, byIdChanges };
}
