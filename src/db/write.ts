import { eq } from 'drizzle-orm';
import type { Db } from './connect.js';
import { pgError, refusalFor } from './pg-error.js';
import { catalogueState } from './schema.js';

/** The transaction handle drizzle passes to `db.transaction`'s callback. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

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
        await tx.select({ id: catalogueState.id }).from(catalogueState).where(eq(catalogueState.id, 1)).for('update');
        return run(tx);
      });
    } catch (err) {
      const code = pgError(err)?.code;
      if ((code === '40P01' || code === '40001') && attempt < 3) continue;
      throw refusalFor(err) ?? err;
    }
  }
}
