import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import type { Identity } from '../../src/auth/identity.js';
import { type CatalogueData, replaceCatalogue } from '../../src/catalogue/repository.js';
import { openDatabase } from '../../src/db/connect.js';
import { frozenClock, testConfig } from './app.js';
import { openTestDatabase, type TestDatabase } from './database.js';
import { freePort } from './ports.js';

/** One request as the service answered it: what a client's behaviour is judged by. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  identity: Identity;
}

export interface ListeningApp {
  app: FastifyInstance;
  /** PUBLIC_BASE_URL: SDKs compare issuers and resources exactly. Where it listens, but for a second instance. */
  base: string;
  /** Where this instance listens (`base`, but for a second instance). */
  address: string;
  mcpUrl: URL;
  clock: ReturnType<typeof frozenClock>;
  exchanges: Exchange[];
  /** The database this instance runs on (shared with the first one, for a second instance). */
  database: TestDatabase;
  close(): Promise<void>;
}

export interface ListeningOptions extends Pick<AppDeps, 'clientDocumentsCa'> {
  /** Put in place of the demo catalogue. */
  catalogue?: CatalogueData;
  /**
   * Make this a second instance of `besides`, as behind a load balancer: its database (on
   * PostgreSQL through a pool and a LISTEN of its own), its clock and its PUBLIC_BASE_URL, on a
   * port of its own; `now` is then ignored.
   */
  besides?: ListeningApp;
}

/** The database of a second instance: its own connections to the same PostgreSQL database, or the same PGlite. */
async function sameDatabase(first: TestDatabase): Promise<TestDatabase> {
  if (!first.url) return { ...first, dispose: async () => {} };
  const database = await openDatabase({ kind: 'postgres', url: first.url });
  return { database, url: first.url, dispose: () => database.close() };
}

/**
 * The whole service on a real loopback listener, as MCP SDK clients need it (they speak HTTP
 * through fetch, not inject), with a clock the test moves to expire tokens.
 */
export async function listeningApp(
  now: string,
  env: Record<string, string> = {},
  options: ListeningOptions = {},
): Promise<ListeningApp> {
  const first = options.besides;
  const db: TestDatabase = first ? await sameDatabase(first.database) : await openTestDatabase();
  if (options.catalogue && !first) await replaceCatalogue(db.database.db, options.catalogue);
  const port = await freePort();
  const address = `http://127.0.0.1:${port}`;
  const base = first?.base ?? address;
  const clock = first?.clock ?? frozenClock(now);
  const app = await buildApp(testConfig({ ...env, PUBLIC_BASE_URL: base }), {
    database: db.database,
    logger: false,
    clock,
    ...(options.clientDocumentsCa === undefined ? {} : { clientDocumentsCa: options.clientDocumentsCa }),
  });
  const exchanges: Exchange[] = [];
  app.addHook('onResponse', async (request, reply) => {
    exchanges.push({
      method: request.method,
      path: request.url.split('?')[0]!,
      status: reply.statusCode,
      identity: request.identity,
    });
  });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    app,
    base,
    address,
    mcpUrl: new URL('/api/mcp', address),
    clock,
    exchanges,
    database: db,
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}
