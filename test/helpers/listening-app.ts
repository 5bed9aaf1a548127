import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import type { Identity } from '../../src/auth/identity.js';
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
  /** PUBLIC_BASE_URL, and where the service listens: SDKs compare issuers and resources exactly. */
  base: string;
  mcpUrl: URL;
  clock: ReturnType<typeof frozenClock>;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/**
 * The whole service on a real loopback listener, as MCP SDK clients need it (they speak HTTP
 * through fetch, not inject), with a clock the test moves to expire tokens.
 */
export async function listeningApp(
  now: string,
  env: Record<string, string> = {},
  deps: Pick<AppDeps, 'clientDocumentsCa'> = {},
): Promise<ListeningApp> {
  const db: TestDatabase = await openTestDatabase();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const clock = frozenClock(now);
  const app = await buildApp(testConfig({ ...env, PUBLIC_BASE_URL: base }), {
    database: db.database,
    logger: false,
    clock,
    ...deps,
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
    mcpUrl: new URL('/api/mcp', base),
    clock,
    exchanges,
    async close() {
      await app.close();
      await db.dispose();
    },
  };
}
