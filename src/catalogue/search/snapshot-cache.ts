import { LruCache, stringBytes } from '../../core/lru-cache.js';
import type { CatalogueSnapshot } from '../read-model.js';
import {
  type CentreSessions,
  centreSessionsOf,
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
 * What searches derive from one snapshot's centres and lists: towns and places recur across
 * queries that differ in dates, prices or days, and the snapshot (hence its centres) is immutable.
 * Owned by the snapshot (`derived`); the next snapshot starts its own.
 */
export class SnapshotSearchCache {
  #centres: readonly CentreSessions[] | undefined;
  readonly #picks = new LruCache<string, PickedCentres>(PICKS_BYTES, pickBytes);
  // One per order: a plan's lists depend on it.
  readonly #plans: Record<Sort, LruCache<string, WalkPlan>> = { date: plans(), price: plans(), distance: plans() };

  constructor(private readonly snapshot: CatalogueSnapshot) {}

  /** Every centre with its sessions, made on the first search that names a place. */
  get centres(): readonly CentreSessions[] {
    this.#centres ??= centreSessionsOf(this.snapshot);
    return this.#centres;
  }

  /** The plan of a search that picks centres by place, in `sort` order. */
  plan(f: LocationFilters, sort: Sort): WalkPlan {
    const key = locationFiltersKey(f);
    const byOrder = this.#plans[sort];
    let plan = byOrder.get(key);
    if (plan === undefined) {
      let picked = this.#picks.get(key);
      if (picked === undefined) {
        picked = pickCentres(this.centres, f);
        this.#picks.set(key, picked);
      }
      plan = planOfPicked(this.snapshot, picked, f, sort);
      byOrder.set(key, plan);
    }
    return plan;
  }
}
