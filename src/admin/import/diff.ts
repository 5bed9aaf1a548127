import { asc, inArray } from 'drizzle-orm';
import type { Db } from '../../db/connect.js';
import type { centres, stageSessions } from '../../db/schema.js';
import type { ImportCounts } from './records.js';
import { inChunks } from './records.js';

/** What a batch changes in one table: the counts, and the rows to upsert. */
export interface TablePlan<V> {
  counts: ImportCounts;
  writes: ({ id: string } & V)[];
}

/**
 * The stored rows with these ids; with `lock`, locked for the rest of the transaction (in id order,
 * so that two imports of the same rows wait for each other rather than deadlock). A write must lock
 * them: the figures it writes are set against what they read (a session's bookings held here), and
 * a booking committed between the read and the write would otherwise be forgotten — a place sold twice.
 */
export async function rowsById<T extends { id: string }>(
  db: Pick<Db, 'select'>,
  table: typeof centres | typeof stageSessions,
  ids: string[],
  lock = false,
): Promise<Map<string, T>> {
  const sorted = lock ? [...ids].sort() : ids;
  const rows = await inChunks(sorted, async (chunk) => {
    const query = db.select().from(table).where(inArray(table.id, chunk));
    return (await (lock ? query.orderBy(asc(table.id)).for('update') : query)) as unknown as T[];
  });
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The same for centres and sessions: each item is new (created), differs from its stored row
 * (updated) or matches it (unchanged, and not written, so its updatedAt stays).
 */
export function diffAgainstStored<I, R, V>(
  items: readonly { id: string; input: I }[],
  stored: Map<string, R>,
  valuesOf: (input: I, current: R | undefined) => V,
  same: (row: R, values: V) => boolean,
): TablePlan<V> {
  const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0 };
  const writes: ({ id: string } & V)[] = [];
  for (const item of items) {
    const current = stored.get(item.id);
    const values = valuesOf(item.input, current);
    if (current && same(current, values)) counts.unchanged++;
    else {
      counts[current ? 'updated' : 'created']++;
      writes.push({ id: item.id, ...values });
    }
  }
  return { counts, writes };
}
