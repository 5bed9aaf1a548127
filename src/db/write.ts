import { eq } from 'drizzle-orm';
import type { Db } from './connect.js';
import { pgError, refusalFor } from './pg-error.js';
import { catalogueState } from './schema.js';

/** The transaction handle drizzle passes to `db.transaction`'s callback. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * Runs at the end of every catalogue write, in its transaction, after the write's own work:
 * `sinceVersion` is the catalogue's version when the write began, so the change log's rows above
 * it are this write's (the version lock is held throughout). What a change causes elsewhere (a
 * webhook's events) is then written with it, whichever door made it.
 */
export type CatalogueWriteHook = (tx: Tx, sinceVersion: number) => Promise<void>;

// Per database handle, by name: an app registers its hooks on the database it was given, and a
// second app on the same handle (tests) replaces them rather than running them twice.
const writeHooks = new WeakMap<Db, Map<string, CatalogueWriteHook>>();

/** Registers (or replaces) the hook `name` on this database's catalogue writes. */
export function onCatalogueWrite(db: Db, name: string, hook: CatalogueWriteHook): void {
  const hooks = writeHooks.get(db) ?? new Map<string, CatalogueWriteHook>();
  writeHooks.set(db, hooks);
  hooks.set(name, hook);
}

/**
 * One catalogue write: takes the catalogue's version lock first (the change-log triggers take it
 * anyway, at each statement's end; taking it first orders every writer the same way, so two writers
 * cannot deadlock), and retries a transaction PostgreSQL aborted as a deadlock or serialization loser.
 * Constraint violations come out as WriteRefused (db/pg-error.ts).
 */
export async function catalogueWrite<T>(db: Db, run: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        const [state] = await tx
          .select({ version: catalogueState.version })
          .from(catalogueState)
          .where(eq(catalogueState.id, 1))
          .for('update');
        const result = await run(tx);
        const hooks = writeHooks.get(db);
        if (hooks) for (const hook of hooks.values()) await hook(tx, state?.version ?? 0);
        return result;
      });
    } catch (err) {
      const code = pgError(err)?.code;
      if ((code === '40P01' || code === '40001') && attempt < 3) continue;
      throw refusalFor(err) ?? err;
    }
  }
}
