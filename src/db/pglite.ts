import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { CATALOGUE_CHANNEL, type Database, type Db, MIGRATIONS_FOLDER, versionOf, withTimeout } from './database.js';
import * as schema from './schema.js';

// Reads are served from the in-memory read model, so the embedded server needs few buffers:
// 16 MB instead of PostgreSQL's 128 MB default keeps about 150 MB of RSS off every instance.
const EMBEDDED_SETTINGS = ['shared_buffers = 16MB'];

export async function openPglite(dataDir: string, existing?: PGlite): Promise<Database> {
  const client = existing ?? (await PGlite.create(dataDir, { postgresqlconf: EMBEDDED_SETTINGS }));
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    migrate: () => migratePglite(drizzlePglite(client, { schema }), { migrationsFolder: MIGRATIONS_FOLDER }),
    async ping(timeoutMs = 2000) {
      if (client.closed) throw new Error('embedded database is closed');
      // A query waits for the open transaction (one connection), which this very process is
      // running: an import's takes seconds, and is no sign of a database that does not answer.
      if (client.isInTransaction()) return;
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
