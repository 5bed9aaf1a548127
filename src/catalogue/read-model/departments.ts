import type { SessionEntry } from './entries.js';
import { DEPARTMENT_CHUNK, SessionChunks } from './session-chunks.js';
import { groupBy, splitChanges } from './sorted-lists.js';

/** One department in a snapshot: its scheduled sessions and the version at which they last changed. */
export interface DepartmentIndex {
  /** In session order, in chunks that snapshots share. */
  readonly sessions: SessionChunks;
  /** 0 when unchanged since the last full build (whose version is the snapshot's `baseVersion`). */
  readonly version: number;
}

/** The departments of a full build's listed sessions, in session order. */
export function departmentsOf(listed: readonly SessionEntry[]): ReadonlyMap<string, DepartmentIndex> {
  const out = new Map<string, DepartmentIndex>();
  for (const [code, list] of groupBy(listed, deptOf))
    out.set(code, { sessions: SessionChunks.of(list, DEPARTMENT_CHUNK), version: 0 });
  return out;
}

/**
 * A copy of the departments with the changes applied and every department in `touched` at
 * `version` (its sessions or its centres changed): a changed department copies only the chunks
 * its changes touch; the others are shared, and so is the map when nothing was touched. One map
 * copied a change, not one per index (the versions and the lists were two).
 */
export function updateDepartments(
  departments: ReadonlyMap<string, DepartmentIndex>,
  removed: readonly SessionEntry[],
  added: readonly SessionEntry[],
  touched: ReadonlySet<string>,
  version: number,
): ReadonlyMap<string, DepartmentIndex> {
  if (touched.size === 0) return departments;
  const changes = splitChanges(removed, added, deptOf);
  const out = new Map(departments);
  for (const code of touched) {
    const sessions = departments.get(code)?.sessions ?? SessionChunks.of([], DEPARTMENT_CHUNK);
    const c = changes.get(code);
    out.set(code, { sessions: c ? sessions.with(c.removed, c.added) : sessions, version });
  }
  return out;
}

const deptOf = (e: SessionEntry) => e.centre.view.deptCode;
