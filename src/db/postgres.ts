import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import {
  CATALOGUE_CHANNEL,
  type Database,
  type Db,
  MIGRATION_LOCK_KEY,
  MIGRATIONS_FOLDER,
  withTimeout,
} from './database.js';
import { runsNamedStatements } from './prepared.js';
import * as schema from './schema.js';
import { runsCatalogueTransactions, type Tx, toldVersion } from './write.js';

/**
 * LISTEN on a dedicated connection, re-established with backoff if it drops; on reconnect the
 * caller reloads once (onChange with no payload), since notifications sent meanwhile are lost.
 */
async function listenWithReconnect(
  pg: typeof import('pg').default,
  url: string,
  listeners: Set<pg.PoolClient | pg.Client>,
  closing: () => boolean,
  onChange: (payload?: string) => void,
  onListening?: (listening: boolean) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let delay = 250;
  const connect = async (): Promise<void> => {
    if (stopped || closing()) return;
    const c = new pg.Client({ connectionString: url });
    c.on('notification', (n) => onChange(n.payload));
    c.on('error', () => {});
    try {
      await c.connect();
      await c.query(`listen ${CATALOGUE_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => {});
      throw err;
    }
    // Only a connection that was listening schedules its own replacement when it drops.
    c.on('end', () => {
      listeners.delete(c);
      if (stopped || closing()) return;
      onListening?.(false);
      setTimeout(() => void reconnect(), delay).unref();
    });
    listeners.add(c);
    client = c;
    delay = 250;
  };
  const reconnect = async () => {
    try {
      await connect();
      onListening?.(true);
      onChange();
    } catch {
      // At most a second between attempts: once the database is back, this instance catches up
      // within about a second (one connection attempt a second is nothing for the server).
      delay = Math.min(delay * 2, 1_000);
      if (!stopped && !closing()) setTimeout(() => void reconnect(), delay).unref();
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (client) {
      listeners.delete(client);
      await client.end().catch(() => {});
    }
  };
}

export async function openPostgres(url: string): Promise<Database> {
  // Loaded only for PostgreSQL: the embedded default starts without them.
  const [{ default: pg }, { drizzle: drizzlePg, NodePgSession, NodePgTransaction }, { migrate: migratePg }] =
    await Promise.all([
      import('pg'),
      import('drizzle-orm/node-postgres'),
      import('drizzle-orm/node-postgres/migrator'),
    ]);
  // query_timeout: a server that hangs (stopped, connection still open) must fail a request in
  // seconds, not hold it forever; the error maps to 503 (src/db/unavailable.ts).
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000, query_timeout: 5000 });
  // An idle client that loses its connection emits 'error'; the pool replaces it. Without a
  // listener Node would treat it as an unhandled error and exit.
  pool.on('error', () => {});
  // A client checked out of the pool (a transaction between two statements) has no pool listener:
  // a connection the server ends then (shutdown, pg_terminate_backend) would be an unhandled 'error'
  // event and end the process. With this one, the transaction's next statement fails instead, as
  // an outage (503), and the pool drops the broken client when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  const dialect = new PgDialect();
  // Values read as drizzle's own driver reads them (times and dates as PostgreSQL writes them).
  const asWritten = new Set([1082, 1114, 1115, 1182, 1184, 1185, 1186, 1187, 1231]);
  const types = {
    getTypeParser: (oid: number, format?: 'text' | 'binary') =>
      asWritten.has(oid) ? (value: string) => value : pg.types.getTypeParser(oid, format),
  };
  runsNamedStatements(db, (name, query) => {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return pool.query({ name, text, values: params, types } as pg.QueryConfig);
  });
  // A catalogue write's transaction, run here as drizzle's own runs it (the same session and
  // transaction objects, on a client of the pool), but for its BEGIN, sent with the write's opening
  // statement: one round trip fewer on every catalogue write.
  const { schema: tables, fullSchema, tableNamesMap } = (db as unknown as NodePgDatabase<typeof schema>)._;
  if (!tables) throw new Error('drizzle was given no schema');
  const relational = { schema: tables, fullSchema, tableNamesMap };
  // The version its COMMIT took comes as a notice on its own connection, before COMMIT answers
  // (migration 0029): the writer's answer waits for that version, not for a read of the change log.
  runsCatalogueTransactions(db, async (opening, run) => {
    const client = await pool.connect();
    let version: number | null = null;
    const heard = (notice: { message?: string }) => {
      const told = toldVersion(notice.message);
      if (told !== undefined) version = Math.max(version ?? 0, told);
    };
    client.on('notice', heard);
    let broken: Error | undefined;
    try {
      // The opening's values are the service's own (a time, flags): written into its text, escaped.
      const { sql: text } = dialect.sqlToQuery(opening.inlineParams());
      const results = (await client.query({ text: `begin; ${text}`, rowMode: 'array' })) as unknown as pg.QueryResult[];
      const session = new NodePgSession(client, dialect, relational, {});
      const tx = new NodePgTransaction(dialect, session, relational) as unknown as Tx;
      const result = await run(tx, (results[1]?.rows[0] ?? []) as unknown[]);
      await client.query('commit');
      return { result, version };
    } catch (err) {
      // A server that did not answer in time would not answer the ROLLBACK either: the connection is
      // dropped instead (the server rolls back a transaction whose connection ends). So is one that
      // cannot even roll back.
      if (err instanceof Error && err.message === 'Query read timeout') broken = err;
      else
        await client.query('rollback').catch((e: Error) => {
          broken = e;
        });
      throw err;
    } finally {
      client.off('notice', heard);
      client.release(broken);
    }
  });
  const listeners = new Set<pg.PoolClient | pg.Client>();
  let closing = false;

  return {
    kind: 'postgres',
    db,
    async migrate() {
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
      } finally {
        await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
        client.release();
      }
    },
    async ping(timeoutMs = 2000) {
      await withTimeout(db.execute(sql`select 1`), timeoutMs, 'database ping');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listenCatalogueChanges: (onChange, onListening) =>
      listenWithReconnect(pg, url, listeners, () => closing, onChange, onListening),
    async close() {
      if (closing) return;
      closing = true;
      await Promise.all([...listeners].map((c) => (c as pg.Client).end().catch(() => {})));
      await pool.end();
    },
  };
}
