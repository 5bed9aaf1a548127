import type { SQL } from 'drizzle-orm';
import type { Db } from './database.js';

/*
 * Statements the service runs on every write, kept parsed and planned by PostgreSQL under a name
 * on each connection (protocol-level prepared statements): planning the catch-up's read alone cost
 * PostgreSQL 0.3 ms of CPU a call, more than running it (pg_stat_statements, bench/README.md).
 * Builder queries name themselves with drizzle's `.prepare(name)`; a statement written as SQL goes
 * through `executePrepared`. A name always goes with the same text. The embedded database plans
 * in-process, with no round trip to save: it runs them as they are.
 */

type NamedRunner = (name: string, query: SQL) => Promise<{ rows: unknown[] }>;

// Per database handle: openPostgres registers how its pool runs a named statement.
const runners = new WeakMap<Db, NamedRunner>();

/** How `db` runs a named statement (PostgreSQL's pool); a handle without one runs statements as they are. */
export function runsNamedStatements(db: Db, run: NamedRunner): void {
  runners.set(db, run);
}

/** Runs `query`, kept prepared under `name` where the database keeps statements (see above). */
export async function executePrepared<Row>(db: Db, name: string, query: SQL): Promise<{ rows: Row[] }> {
  const run = runners.get(db);
  return (run ? await run(name, query) : await db.execute(query)) as unknown as { rows: Row[] };
}
