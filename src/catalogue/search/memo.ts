import { LruCache, stringBytes } from '../../core/lru-cache.js';
import { DEPARTMENTS } from '../geography.js';
import { type CityMatcher, cityMatcher, type Origin, resolveOrigin } from '../locations.js';
import { searchKey } from '../text.js';

// Each department's region, folded for matching; the same source as the centres' region keys.
const DEPARTMENT_REGION_KEYS: readonly (readonly [string, string])[] = DEPARTMENTS.map(
  (d) => [d.code, searchKey(d.region)] as const,
);

/** Per cache: a few thousand texts with what they resolve to. */
const MEMO_BYTES = 2 * 1024 * 1024;

/** A cache of a pure function of a search text; the value's weight on top of its text is `valueBytes`. */
function textCache<T>(valueBytes: (value: T) => number): LruCache<string, T> {
  return new LruCache<string, T>(MEMO_BYTES, (text, value) => stringBytes(text) + valueBytes(value));
}

const matcherBytes = (m: CityMatcher) => 2 * m.label.length + 200 + (m.exact ? 100 * m.exact.size : 0);
const originBytes = (o: Origin) => 2 * (o.label.length + o.key.length) + 100;
const listBytes = (codes: readonly string[]) => 16 * codes.length + 32;

/**
 * What searches remember of their texts: the same towns, places and regions come back in queries
 * that differ in dates or prices. Each is a pure function of its text; what it returns is shared
 * between searches and never altered. Errors (an unknown place) are not remembered. Owned by the
 * read model (one per full build, shared by the snapshots derived from it).
 */
export class SearchMemo {
  readonly #cityMatchers = textCache(matcherBytes);
  readonly #origins = textCache(originBytes);
  readonly #searchKeys = textCache<string>(stringBytes);
  readonly #regionDepartments = textCache(listBytes);

  cityMatcher(text: string): CityMatcher {
    return this.#cityMatchers.getOrCompute(text, cityMatcher);
  }

  origin(text: string): Origin {
    return this.#origins.getOrCompute(text, toOrigin);
  }

  searchKey(text: string): string {
    return this.#searchKeys.getOrCompute(text, searchKey);
  }

  /** The departments of the regions a folded needle matches. */
  regionDepartments(needle: string): readonly string[] {
    return this.#regionDepartments.getOrCompute(needle, departmentsOfRegions);
  }
}

const toOrigin = (text: string) => resolveOrigin(text);

function departmentsOfRegions(needle: string): readonly string[] {
  return DEPARTMENT_REGION_KEYS.filter(([, key]) => key.includes(needle)).map(([code]) => code);
}
