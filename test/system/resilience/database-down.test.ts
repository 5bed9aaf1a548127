import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { oauthClients } from '../../../src/db/schema.js';
import { isDatabaseUnavailable } from '../../../src/db/unavailable.js';
import { buildTestApp, type TestApp, testConfig } from '../../helpers/app.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../../helpers/database.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Cuts the database off under the running app; returns how to bring it back (PostgreSQL only). */
async function takeDatabaseDown(db: TestDatabase = t.db): Promise<() => Promise<void>> {
  if (TEST_DB === 'pglite') {
    // The embedded database lives in the process: closing it is its outage.
    await db.database.close();
    return async () => {};
  }
  const name = new URL(db.url as string).pathname.slice(1);
  const admin = new pg.Client({ connectionString: db.url?.replace(`/${name}`, '/test') });
  await admin.connect();
  await admin.query(`alter database ${name} allow_connections false`);
  await admin.query(
    'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
    [name],
  );
  return async () => {
    await admin.query(`alter database ${name} allow_connections true`);
    await admin.end();
  };
}

const register = () =>
  t.app.inject({ method: 'POST', url: '/api/oauth/register', payload: { client_name: 'outage drill' } });
const token = (id: string, secret: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
  });

describe('writes while the database is down', () => {
  it('answers registration and token requests with 503, Retry-After and an OAuth error, then recovers', async () => {
    const before = await register();
    expect(before.statusCode).toBe(201);
    const { client_id, client_secret } = before.json();

    const bringBack = await takeDatabaseDown();
    try {
      for (const res of [await register(), await token(client_id, client_secret)]) {
        expect(res.statusCode).toBe(503);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.json()).toEqual({
          error: 'temporarily_unavailable',
          error_description: 'The service cannot reach its database right now. Retry shortly.',
        });
        expect(res.body).not.toMatch(/stack|select|insert|node_modules|Error:/i);
      }
      // Reads keep being served from the in-memory catalogue.
      expect((await t.app.inject('/api/stages?limit=1')).statusCode).toBe(200);
    } finally {
      await bringBack();
    }
    if (TEST_DB === 'postgres') {
      expect((await register()).statusCode).toBe(201);
      expect((await token(client_id, client_secret)).statusCode).toBe(200);
    }
  });
});

describe('any route that needs the database while it is down', () => {
  it('answers problem+json 503 with Retry-After, not a 500 (the mapping every door reuses)', async () => {
    // A throwaway route on its own instance that writes, as the admin API's routes will.
    const db = await openTestDatabase();
    const app = await buildApp(testConfig(), { database: db.database, logger: false });
    app.post('/test/write', async () => {
      await db.database.db.insert(oauthClients).values({
        clientId: 'cl_outage_probe_0000000000',
        secretHash: 'x',
        clientName: 'probe',
        tokenEndpointAuthMethod: 'client_secret_basic',
        createdAt: new Date(),
      });
      return { ok: true };
    });
    await app.ready();
    try {
      const bringBack = await takeDatabaseDown(db);
      const res = await app.inject({ method: 'POST', url: '/test/write' });
      await bringBack();
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toEqual({
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        code: 'database_unavailable',
        detail: 'The database is unavailable right now. Retry after a few seconds.',
      });
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});

describe('isDatabaseUnavailable', () => {
  it('recognises outages through wrapping causes, and nothing else', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const wrapped = new Error('Failed query: select 1', { cause: refused });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new AggregateError([refused]))).toBe(true);
    // A bad statement or a constraint violation is a bug or a conflict, not an outage.
    expect(isDatabaseUnavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable('a string')).toBe(false);
  });
});
