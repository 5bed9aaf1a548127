import type { DepartmentIndex } from './departments.js';
import type { CentreEntry, SessionEntry } from './entries.js';
import type { SessionChunks } from './session-chunks.js';
import type { ShardedMap } from './sharded-map.js';

/** What a snapshot indexes: built whole (build.ts) or derived from the previous one (apply.ts). */
export interface Indexes {
  /** Scheduled sessions (no cancelled one), in session order, in chunks that snapshots share. */
  readonly sessions: SessionChunks;
  /**
   * Each department's scheduled sessions and the version at which they last changed: an answer
   * that draws only on some departments stays valid while they do not change.
   */
  readonly departments: ReadonlyMap<string, DepartmentIndex>;
  readonly sessionsByCentre: ShardedMap<readonly SessionEntry[]>;
  /** Every session, cancelled ones included. */
  readonly sessionsById: ShardedMap<SessionEntry>;
  readonly centresById: ReadonlyMap<string, CentreEntry>;
  readonly centresBySlug: ReadonlyMap<string, CentreEntry>;
}
