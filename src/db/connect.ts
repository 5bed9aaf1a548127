import type { PGlite } from '@electric-sql/pglite';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './database.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export { CATALOGUE_CHANNEL, type Database, type Db } from './database.js';

export interface OpenOptions {
  /** An already opened PGlite (tests load a prepared data directory into one). */
  pglite?: PGlite;
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  return config.kind === 'postgres' ? openPostgres(config.url) : openPglite(config.dataDir, options.pglite);
}
