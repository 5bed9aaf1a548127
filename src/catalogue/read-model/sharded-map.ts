// 64 groups of 64 shards: about 50 entries a shard at ten times the demo (200,000 sessions), so a
// changed entry copies 64 + 64 slots and one small map. With one level of 1,024 shards, copying the
// slots and a shard of 200 entries was a fifth of what a change cost there (bench/micro/apply-cost.ts).
const FAN = 64;
const SHARDS = FAN * FAN;

type Group<V> = readonly ReadonlyMap<string, V>[];

/**
 * An id → entry map split in shards by the id's hash, in two levels, so that a changed entry copies
 * one group's slots and one shard (a few dozen entries at ten times the demo), not the whole map:
 * snapshots share the rest.
 */
export class ShardedMap<V> implements Iterable<[string, V]> {
  private constructor(
    private readonly groups: readonly Group<V>[],
    readonly size: number,
  ) {}

  static from<V>(entries: Iterable<readonly [string, V]>): ShardedMap<V> {
    const groups = Array.from({ length: FAN }, () => Array.from({ length: FAN }, () => new Map<string, V>()));
    let size = 0;
    for (const [k, v] of entries) {
      const i = shardOf(k);
      ((groups[i >>> 6] as Map<string, V>[])[i & (FAN - 1)] as Map<string, V>).set(k, v);
      size++;
    }
    return new ShardedMap(groups, size);
  }

  get(key: string): V | undefined {
    const i = shardOf(key);
    return ((this.groups[i >>> 6] as Group<V>)[i & (FAN - 1)] as ReadonlyMap<string, V>).get(key);
  }

  *values(): IterableIterator<V> {
    for (const group of this.groups) for (const shard of group) yield* shard.values();
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const group of this.groups) for (const shard of group) yield* shard.entries();
  }

  /** A copy with `changes` applied (undefined deletes), sharing every untouched group and shard. */
  with(changes: ReadonlyMap<string, V | undefined>): ShardedMap<V> {
    const groups = [...this.groups];
    const copiedGroups = new Set<number>();
    const copiedShards = new Set<number>();
    let size = this.size;
    for (const [k, v] of changes) {
      const i = shardOf(k);
      const g = i >>> 6;
      if (!copiedGroups.has(g)) {
        groups[g] = [...(groups[g] as Group<V>)];
        copiedGroups.add(g);
      }
      const group = groups[g] as ReadonlyMap<string, V>[];
      const s = i & (FAN - 1);
      if (!copiedShards.has(i)) {
        group[s] = new Map(group[s]);
        copiedShards.add(i);
      }
      const shard = group[s] as Map<string, V>;
      const had = shard.has(k);
      if (v === undefined) {
        if (had) size--;
        shard.delete(k);
      } else {
        if (!had) size++;
        shard.set(k, v);
      }
    }
    return new ShardedMap(groups, size);
  }
}

function shardOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % SHARDS;
}
