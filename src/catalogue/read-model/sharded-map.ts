// 1,024: about 200 entries a shard at ten times the demo (200,000 sessions). With 64, copying the
// changed entry's shard (3,100 entries) was half of what a change cost there (bench/micro/apply-cost.ts).
const SHARDS = 1024;

/**
 * An id → entry map split in shards by the id's hash, so that a changed entry copies one shard
 * (about two hundred entries at ten times the demo), not the whole map: snapshots share the rest.
 */
export class ShardedMap<V> {
  private constructor(
    private readonly shards: readonly ReadonlyMap<string, V>[],
    readonly size: number,
  ) {}

  static from<V>(entries: Iterable<readonly [string, V]>): ShardedMap<V> {
    const shards = Array.from({ length: SHARDS }, () => new Map<string, V>());
    let size = 0;
    for (const [k, v] of entries) {
      (shards[shardOf(k)] as Map<string, V>).set(k, v);
      size++;
    }
    return new ShardedMap(shards, size);
  }

  get(key: string): V | undefined {
    return (this.shards[shardOf(key)] as ReadonlyMap<string, V>).get(key);
  }

  *values(): IterableIterator<V> {
    for (const shard of this.shards) yield* shard.values();
  }

  /** A copy with `changes` applied (undefined deletes), sharing every untouched shard. */
  with(changes: ReadonlyMap<string, V | undefined>): ShardedMap<V> {
    const shards = [...this.shards];
    const copied = new Set<number>();
    let size = this.size;
    for (const [k, v] of changes) {
      const i = shardOf(k);
      if (!copied.has(i)) {
        shards[i] = new Map(shards[i]);
        copied.add(i);
      }
      const shard = shards[i] as Map<string, V>;
      const had = shard.has(k);
      if (v === undefined) {
        if (had) size--;
        shard.delete(k);
      } else {
        if (!had) size++;
        shard.set(k, v);
      }
    }
    return new ShardedMap(shards, size);
  }
}

function shardOf(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) | 0;
  return (h >>> 0) % SHARDS;
}
