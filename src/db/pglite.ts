import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { releaseBytes } from '../core/release-bytes.js';
import { CATALOGUE_CHANNEL, type Database, type Db, MIGRATIONS_FOLDER, withTimeout } from './database.js';
import * as schema from './schema.js';

/**
 * Reads are served from the in-memory read model, so the embedded server needs few buffers: 8 MB
 * instead of PostgreSQL's 128 MB default keeps about 155 MB of RSS off every instance. Against 16 MB,
 * 8 MB keeps 7–8 MB less (a restart's whole tree 254 → 246 MB) for writes 3–8 % slower in CPU (a
 * single-row update 0.46–0.48 → 0.48–0.49 ms, a 5,000-row one 212–213 → 222–229 ms, the demo's
 * database, alternated): the bulk of a session's 8 KB pages fits still.
 */
const EMBEDDED_SETTINGS = ['shared_buffers = 8MB'];

/**
 * PostgreSQL's WebAssembly (9 MB), compiled here rather than by PGlite: PGlite reads the file into a
 * buffer it drops once compiled, but the buffer has outlived the young generation by then (the
 * service's modules load meanwhile), so its 9 MB stayed in RSS until a full collection. V8 keeps
 * its own copy of the bytes; ours is released as soon as the module is compiled. The compilation
 * runs off the main thread; a timer keeps the event loop alive meanwhile (a pending compilation
 * alone does not on Node 24, and the CLI has nothing else pending).
 */
async function compilePostgres(): Promise<WebAssembly.Module> {
  const wasm = join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), 'pglite.wasm');
  const bytes = await readFile(wasm);
  const alive = setInterval(() => {}, 60_000);
  try {
    return await WebAssembly.compile(bytes);
  } finally {
    clearInterval(alive);
    releaseBytes(bytes);
  }
}

export async function openPglite(dataDir: string, existing?: PGlite): Promise<Database> {
  const client =
    existing ??
    (await PGlite.create(dataDir, { postgresqlconf: EMBEDDED_SETTINGS, pgliteWasmModule: await compilePostgres() }));
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
      const unlisten = await client.listen(CATALOGUE_CHANNEL, (payload) => onChange(payload));
      return async () => {
        if (!client.closed) await unlisten();
      };
    },
    async close() {
      if (!client.closed) await client.close();
    },
  };
}
