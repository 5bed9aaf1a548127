import type { CatalogueSnapshot } from '../read-model.js';

/**
 * What an answer drew on, so that a cached answer can outlive changes elsewhere: some departments'
 * sessions (or all), and whether it matched centres by name or position (then any centre change may alter it).
 */
export interface SearchScope {
  depts: readonly string[] | 'all';
  centres: boolean;
}

/** Whether an answer computed at `version` with `scope` still holds in `snapshot`. */
export function stillValid(snapshot: CatalogueSnapshot, version: number, scope: SearchScope): boolean {
  if (snapshot.version === version) return true;
  if (scope.depts === 'all' || snapshot.baseVersion > version) return false;
  if (scope.centres && snapshot.centresVersion > version) return false;
  for (const code of scope.depts) if (snapshot.deptVersion(code) > version) return false;
  return true;
}
