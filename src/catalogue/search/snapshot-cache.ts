import { LruCache, stringBytes } from '../../core/lru-cache.js';
import type { CatalogueSnapshot, CentreEntry } from '../read-model.js';
import {
  type CandidateCentre,
  candidateCentresOf,
  type LocationFilters,
  locationFiltersKey,
  type PickedCentres,
  pickCentres,
} from './centres.js';
import { planBytes, planOfPicked, type Sort, type WalkPlan } from './plan.js';

const PICKS_BYTES = 8 * 1024 * 1024;
const PLANS_BYTES = 4 * 1024 * 1024;

const pickBytes = (key: string, p: PickedCentres) =>
  stringBytes(key) + 100 + 8 * p.centres.length + 48 * p.metres.size + 16 * p.depts.length;
const plans = () => new LruCache<string, WalkPlan>(PLANS_BYTES, (key, plan) => stringBytes(key) + planBytes(plan));

const SEARCH_CACHE = Symbol('search cache');

/** The search cache of a snapshot, made on its first search that picks centres. */
export function searchCacheOf(snapshot: CatalogueSnapshot): SnapshotSearchCache {
  return snapshot.derived.get(SEARCH_CACHE, () => new SnapshotSearchCache(snapshot));
}

/**
 * The centres that location filters pick, which depend on the centres alone: kept by centre map,
 * which the snapshots of changes to sessions share, so that a change to a session does not make
 * the next town search compare every centre again (14,000 at ten times the demo).
 */
class CentrePicks {
  #centres: readonly CandidateCentre[] | undefined;
  readonly #picks = new LruCache<string, PickedCentres>(PICKS_BYTES, pickBytes);

  constructor(private readonly centresById: ReadonlyMap<string, CentreEntry>) {}

  pick(key: string, f: LocationFilters): PickedCentres {
    let picked = this.#picks.get(key);
    if (picked === undefined) {
      this.#centres ??= candidateCentresOf(this.centresById);
      picked = pickCentres(this.#centres, f);
      this.#picks.set(key, picked);
    }
    return picked;
  }
}

const centrePicks = new WeakMap<ReadonlyMap<string, CentreEntry>, CentrePicks>();

/**
 * What searches derive from one snapshot's centres and lists: towns and places recur across
 * queries that differ in dates, prices or days, and the snapshot is immutable. The plans (which
 * hold its lists) are the snapshot's own (`derived`); the picks are its centres'.
 */
export class SnapshotSearchCache {
  readonly #picks: CentrePicks;
  // One per order: a plan's lists depend on it.
  readonly #plans: Record<Sort, LruCache<string, WalkPlan>> = { date: plans(), price: plans(), distance: plans() };

  constructor(private readonly snapshot: CatalogueSnapshot) {
    let picks = centrePicks.get(snapshot.centresById);
    if (!picks) {
      picks = new CentrePicks(snapshot.centresById);
      centrePicks.set(snapshot.centresById, picks);
    }
    this.#picks = picks;
  }

  /** The plan of a search that picks centres by place, in `sort` order. */
  plan(f: LocationFilters, sort: Sort): WalkPlan {
    const key = locationFiltersKey(f);
    const byOrder = this.#plans[sort];
    let plan = byOrder.get(key);
    if (plan === undefined) {
      plan = planOfPicked(this.snapshot, this.#picks.pick(key, f), f, sort);
      byOrder.set(key, plan);
    }
    return plan;
  }
}
