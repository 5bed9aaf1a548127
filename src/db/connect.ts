import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export const CATALOGUE_CHANNEL = 'catalogue_changed';
// Resolved from the package root, so that the compiled dist/db/connect.js finds the same SQL files.
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));
// Any constant works; it only has to be the same for every instance migrating one database.
const MIGRATION_LOCK_KEY = 7_312_026;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** Applies pending migrations; safe when several instances start at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Calls `onChange` with the new version whenever any instance changes the catalogue, and `onListening(false)` when
   * notifications are cut off (then `onListening(true)` and `onChange` once they are back, since
   * what changed meanwhile was not announced). Returns an unsubscribe function.
   */
  listenCatalogueChanges(
    onChange: (version?: number) => void,
    onListening?: (listening: boolean) => void,
  ): Promise<() => Promise<void>>;
  /** Connections of the PostgreSQL pool (absent for the embedded database, which has none). */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The version a notification announces (older triggers sent none). */
function versionOf(payload: string | undefined): number | undefined {
  const n = Number(payload);
  return payload && Number.isSafeInteger(n) ? n : undefined;
}

export interface OpenOptions {
  /** An already opened PGlite (tests load a prepared data directory into one). */
  pglite?: PGlite;
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  return config.kind === 'postgres' ? openPostgres(config.url) : openPglite(config.dataDir, options.pglite);
}

// Reads are served from the in-memory read model, so the embedded server needs few buffers:
// 16 MB instead of PostgreSQL's 128 MB default keeps about 150 MB of RSS off every instance.
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB'];

async function openPglite(dataDir: string, existing?: PGlite): Promise<Database> {
  const client = existing ?? (await PGlite.create(dataDir, { postgresqlconf: EMBEDDED_SETTINGS }));
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
    async ping(timeoutMs = 2000) {
      if (client.closed) throw new Error('embedded database is closed');
      await withTimeout(client.query('select 1'), timeoutMs, 'database ping');
    },
    async listenCatalogueChanges(onChange) {
      const unlisten = await client.listen(CATALOGUE_CHANNEL, (payload) => onChange(versionOf(payload)));
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}

async function openPostgres(url: string): Promise<Database> {
  // Loaded only for PostgreSQL: the embedded default starts without them.
  const [{ default: pg }, { drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all([
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
    async listenCatalogueChanges(onChange, onListening) {
      // A dedicated connection, re-established with backoff if it drops; on reconnect we
      // reload once, since notifications sent while we were away are lost.
      let client: pg.Client | undefined;
      let stopped = false;
      let delay = 250;
      const connect = async (): Promise<void> => {
        if (stopped || closing) return;
        const c = new pg.Client({ connectionString: url });
        c.on('notification', (n) => onChange(versionOf(n.payload)));
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
          if (stopped || closing) return;
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
          if (!stopped && !closing) setTimeout(() => void reconnect(), delay).unref();
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
    },
    async close() {
      if (closing) return;
      closing = true;
      await Promise.all([...listeners].map((c) => (c as pg.Client).end().catch(() => {})));
      await pool.end();
    },
  };
}
