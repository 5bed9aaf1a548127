import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema.js';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export const CATALOGUE_CHANNEL = 'catalogue_changed';
// Resolved from the package root, so that the compiled dist/db/connect.js finds the same SQL files.
export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));
// Any constant works; it only has to be the same for every instance migrating one database.
export const MIGRATION_LOCK_KEY = 7_312_026;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  /** Applies pending migrations; safe when several instances start at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers a trivial query within `timeoutMs`. */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * Calls `onChange` with the notification's payload whenever any instance changes the catalogue
   * (the new version, or what changed: catalogue/recent-changes.ts's announcementOf reads it), and
   * `onListening(false)` when notifications are cut off (then `onListening(true)` and `onChange`
   * without a payload once they are back, since what changed meanwhile was not announced). Returns an
   * unsubscribe function.
   */
  listenCatalogueChanges(
    onChange: (payload?: string) => void,
    onListening?: (listening: boolean) => void,
  ): Promise<() => Promise<void>>;
  /** Connections of the PostgreSQL pool (absent for the embedded database, which has none). */
  poolStats?(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
