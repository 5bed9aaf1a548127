import { DEPARTMENTS } from '../catalogue/geography.js';
import { type CatalogueSnapshot, compareSessions, type SessionEntry } from '../catalogue/read-model.js';
import type { SearchScope } from '../catalogue/search.js';
import { hasBegun } from '../catalogue/session-status.js';

/**
 * The next bookable sessions (not begun at `nowMs`) near a full, past or cancelled one: first in its department, then in the
 * rest of its region, each in date order. Reads one department's sorted list at a time and
 * stops as soon as it has enough, so it costs a few dozen entries, not the catalogue.
 */
export function nearbySessions(
  snapshot: CatalogueSnapshot,
  around: SessionEntry,
  nowMs: number,
  count = 5,
): SessionEntry[] {
  const firstBookable = (deptCode: string, n: number) => {
    const out: SessionEntry[] = [];
    for (const e of snapshot.deptSessions(deptCode)?.from((e) => hasBegun(e, nowMs)) ?? []) {
      if (out.length >= n) break;
      if (e.record.spotsAvailable > 0 && e.record.id !== around.record.id) out.push(e);
    }
    return out;
  };
  const centre = around.centre.view;
  const result = firstBookable(centre.deptCode, count);
  if (result.length >= count) return result;
  const regionCode = DEPARTMENTS.find((d) => d.code === centre.deptCode)?.regionCode;
  const others = DEPARTMENTS.filter((d) => d.regionCode === regionCode && d.code !== centre.deptCode).flatMap((d) =>
    firstBookable(d.code, count - result.length),
  );
  others.sort((a, b) => compareSessions(a.record, b.record));
  return [...result, ...others.slice(0, count - result.length)];
}

/**
 * What a session's page draws on: the session and its centre (its department), and the
 * alternatives `nearbySessions` may offer (its department, then the rest of its region). The same
 * for every session of a department, so made once per department: a page kept holds it.
 */
export function regionScope(around: SessionEntry): SearchScope {
  const deptCode = around.centre.view.deptCode;
  let scope = scopesByDept.get(deptCode);
  if (scope === undefined) {
    const regionCode = DEPARTMENTS.find((d) => d.code === deptCode)?.regionCode;
    const depts = DEPARTMENTS.filter((d) => d.regionCode === regionCode && d.code !== deptCode).map((d) => d.code);
    scope = { depts: [deptCode, ...depts], centres: false };
    scopesByDept.set(deptCode, scope);
  }
  return scope;
}
// Department codes come from the read model's centres: a hundred or so.
const scopesByDept = new Map<string, SearchScope>();
