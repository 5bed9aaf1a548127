import type { Columns, ListColumns } from '../list-columns.js';
import type { CatalogueSnapshot, SessionChunks, SessionEntry } from '../read-model.js';
import type { SearchQuery } from '../schemas.js';
import type { CandidateCentre, LocationFilters, PickedCentres } from './centres.js';

export type Sort = NonNullable<SearchQuery['sort']>;

/** Lists of sessions to walk, with their columns (looked up once per plan, not per search). */
export interface Lists {
  readonly lists: readonly (readonly SessionEntry[])[];
  readonly columns: readonly Columns[];
  /**
   * The lists in runs: run r is lists runs[r] to runs[r + 1] - 1, which follow one another in
   * session order (the chunks of one department's list, or of the list of all), read in turn;
   * runs are merged. A centre's list is a run of its own.
   */
  readonly runs: Int32Array;
}

/** Which lists a search walks, in session order, and how to read them. Immutable once made. */
export interface WalkPlan extends Lists {
  /** With near, when each list is one centre's: each list's distance in metres. */
  readonly listMetres: readonly number[] | undefined;
  /** Set when the lists are departments' and only some centres' sessions count (by centre index: 1 for those). */
  readonly centreMask: Uint8Array | undefined;
  /** With near: each centre's distance in metres. */
  readonly metresByCentre: ReadonlyMap<string, number> | undefined;
  /** The departments it draws on (or all), and whether it matched centres by name or position. */
  readonly depts: readonly string[] | 'all';
  readonly byCentres: boolean;
}

/**
 * The lists of a search without a place to pick centres by: a region is a set of departments,
 * merged through their lists (at most 13) rather than its centres'; a department walks its list;
 * no filter walks every session, chunk after chunk. Made once per snapshot (their chunks' columns
 * looked up once, not per search: some 400 at ten times the demo).
 */
export function planWithoutCentres(
  snapshot: CatalogueSnapshot,
  dept: string | undefined,
  regionDepts: readonly string[] | undefined,
): WalkPlan {
  if (regionDepts === undefined && !dept)
    return snapshot.derived.get(ALL, () => listsPlan(snapshot, [snapshot.sessions], 'all'));
  const plans = snapshot.derived.get(BY_DEPARTMENTS, () => new Map<string, WalkPlan>());
  // Keyed by the departments searched: the 101 departments, and the few sets that region names match
  // (a region of one department shares its plan: the same lists).
  const key = regionDepts ? regionDepts.join(',') : (dept as string);
  let plan = plans.get(key);
  if (plan === undefined) {
    const depts = regionDepts ?? [dept as string];
    plan = listsPlan(snapshot, departmentLists(snapshot, depts), depts);
    if (plans.size < PLANS_KEPT) plans.set(key, plan);
  }
  return plan;
}

const ALL = Symbol('the plan of every session');
const BY_DEPARTMENTS = Symbol("the plans of departments' and regions' searches");
// Beyond this many sets of departments in one snapshot (odd region texts), plans are made per search.
const PLANS_KEPT = 256;

/**
 * These departments' lists, each in chunks: one run each (an empty run for a department emptied
 * since the last full build).
 */
function departmentLists(snapshot: CatalogueSnapshot, codes: readonly string[]): SessionChunks[] {
  return codes.flatMap((code) => snapshot.deptSessions(code) ?? []);
}

function listsPlan(snapshot: CatalogueSnapshot, runs: readonly SessionChunks[], depts: WalkPlan['depts']): WalkPlan {
  return {
    ...chunkedLists(snapshot.columns, runs),
    listMetres: undefined,
    centreMask: undefined,
    metresByCentre: undefined,
    depts,
    byCentres: false,
  };
}

/** Lists in chunks as the runs of a walk: each one's chunks in turn. */
function chunkedLists(of: ListColumns, chunked: readonly SessionChunks[]): Lists {
  const lists = chunked.flatMap((c) => c.chunks);
  const runs = new Int32Array(chunked.length + 1);
  for (let r = 0; r < chunked.length; r++)
    runs[r + 1] = (runs[r] as number) + (chunked[r] as SessionChunks).chunks.length;
  return { lists, columns: lists.map((l) => of.of(l)), runs };
}

/** Lists each of which is a run of its own (centres' lists). */
function ownRuns(of: ListColumns, lists: readonly (readonly SessionEntry[])[]): Lists {
  const runs = new Int32Array(lists.length + 1);
  for (let k = 0; k <= lists.length; k++) runs[k] = k;
  return { lists, columns: lists.map((l) => of.of(l)), runs };
}

/**
 * The lists of the centres a place picked. Every match is counted: merging the candidates' lists
 * beats walking the whole pool, however many; in date order, many centres' departments' lists with
 * a mask beat both. In distance order, nearest centres first: once a page is full, farther centres
 * cannot enter it.
 */
export function planOfPicked(
  snapshot: CatalogueSnapshot,
  picked: PickedCentres,
  f: LocationFilters,
  sort: Sort,
): WalkPlan {
  const depts = f.dept ? [f.dept] : picked.depts;
  const metresByCentre = f.origin ? picked.metres : undefined;
  const walk = sort === 'date' ? departmentWalk(snapshot, picked) : null;
  if (walk) return { ...walk, listMetres: undefined, metresByCentre, depts, byCentres: true };
  const metres = picked.metres;
  const ordered =
    sort === 'distance'
      ? [...picked.centres].sort((a, b) => (metres.get(a.id) as number) - (metres.get(b.id) as number))
      : picked.centres;
  return {
    ...ownRuns(
      snapshot.columns,
      ordered.map((c) => sessionsOf(snapshot, c)),
    ),
    listMetres: ordered.map((c: CandidateCentre) => metres.get(c.id) ?? 0),
    centreMask: undefined,
    metresByCentre,
    depts,
    byCentres: true,
  };
}

// Past this many centres, merging their lists one by one costs more than walking their
// departments' lists (already in order) and skipping the other centres' sessions…
const WALK_DEPARTMENTS_FROM = 16;
// …as long as those departments do not hold many more sessions than the centres themselves.
const DEPARTMENT_SESSIONS_PER_PICKED = 6;

/**
 * For a date-ordered search over many centres (a wide radius, a common name): their departments'
 * lists and a mask of the centres, or null when merging the centres' own lists is cheaper.
 */
function departmentWalk(
  snapshot: CatalogueSnapshot,
  picked: PickedCentres,
): (Lists & { centreMask: Uint8Array }) | null {
  if (picked.centres.length <= WALK_DEPARTMENTS_FROM) return null;
  const own = picked.centres.reduce((n, c) => n + sessionsOf(snapshot, c).length, 0);
  const departments = departmentLists(snapshot, picked.depts);
  if (departments.reduce((n, d) => n + d.length, 0) > DEPARTMENT_SESSIONS_PER_PICKED * own) return null;
  const indexes = picked.centres.map((c) => snapshot.columns.centreIndex(c.id));
  const centreMask = new Uint8Array(Math.max(...indexes) + 1);
  for (const i of indexes) centreMask[i] = 1;
  return { ...chunkedLists(snapshot.columns, departments), centreMask };
}

const NONE: readonly SessionEntry[] = [];

/** A centre's listed sessions in the snapshot. */
function sessionsOf(snapshot: CatalogueSnapshot, c: CandidateCentre): readonly SessionEntry[] {
  return snapshot.sessionsByCentre.get(c.id) ?? NONE;
}

/**
 * A rough size of a plan (its arrays of lists, columns and runs), for the snapshot's cache: the
 * lists and columns themselves are the snapshot's.
 */
export function planBytes(plan: WalkPlan): number {
  return 200 + 28 * plan.lists.length + (plan.centreMask?.length ?? 0);
}
