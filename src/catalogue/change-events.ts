import type { CatalogueUpdate } from './catalogue.js';
import type { CatalogueSnapshot } from './read-model.js';
import { type SessionStatus, sessionStatus } from './session-status.js';

/** What a consumer of the change stream learns about one session: where it stands now. */
export interface SessionChange {
  id: string;
  /** `removed`: the session no longer exists. */
  status: SessionStatus | 'removed';
  spotsAvailable: number | null;
  priceEuros: number | null;
  /** The catalogue version that carried this change. */
  version: number;
}

/** One changed session as the snapshot now holds it. */
export function sessionChange(snapshot: CatalogueSnapshot, id: string, now: Date): SessionChange {
  const entry = snapshot.sessionsById.get(id);
  if (!entry) return { id, status: 'removed', spotsAvailable: null, priceEuros: null, version: snapshot.version };
  return {
    id,
    status: sessionStatus(entry, now),
    spotsAvailable: entry.view.spotsAvailable,
    priceEuros: entry.view.priceEuros,
    version: snapshot.version,
  };
}

/**
 * The sessions an update changed, each as it now stands; `reset` when the read model was rebuilt
 * whole (a replaced catalogue, a gap in the log) and a consumer should read the list again.
 */
export function changesOf(update: CatalogueUpdate, now: Date): SessionChange[] | 'reset' {
  if (update.kind === 'reload') return 'reset';
  return [...update.delta.sessions.keys()].map((id) => sessionChange(update.snapshot, id, now));
}
