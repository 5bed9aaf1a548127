import { eq } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { stageSessions } from '../../src/db/schema.js';
import { catalogueWrite } from '../../src/db/write.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /api/health', () => {
  it('reports the service, database and catalogue when all is well', async () => {
    t = await buildTestApp();
    const res = await t.app.inject('/api/health');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 'ok',
      version: '1.0.0',
      database: { kind: TEST_DB, status: 'up' },
    });
    expect(body.database.latencyMs).toBeGreaterThanOrEqual(0);
    expect(body.catalogue.centres).toBeGreaterThan(1000);
    expect(body.catalogue.sessions).toBeGreaterThan(15_000);
    expect(new Date(body.catalogue.updatedAt).toISOString()).toBe(body.catalogue.updatedAt);
    expect(body.catalogue.stale).toBe(false);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 200 while a long write (an import) holds a transaction open', async () => {
    t = await buildTestApp();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let opened = () => {};
    const open = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const write = catalogueWrite(t.app.database.db, async () => {
      opened();
      await held;
    });
    await open;
    // The embedded database has one connection: a probe query would wait for the transaction.
    const res = await t.app.inject('/api/health');
    release();
    await write;
    expect(res.statusCode).toBe(200);
    expect(res.json().database.status).toBe('up');
  });

  it('answers 503 with the same shape when the database is unreachable, and 200 again once it is back', async () => {
    t = await buildTestApp();
    const before = await t.app.inject('/api/stages?limit=1');
    if (TEST_DB === 'postgres') {
      // Cut the database off under the running app: refuse new connections and end the current ones.
      const name = new URL(t.db.url as string).pathname.slice(1);
      const admin = new pg.Client({ connectionString: t.db.url?.replace(`/${name}`, '/test') });
      await admin.connect();
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
        [name],
      );
      const down = await t.app.inject('/api/health');
      expect(down.statusCode).toBe(503);
      // Its change notifications are cut off too: health says the read model may be stale.
      let stale = false;
      for (let i = 0; i < 100 && !stale; i++) {
        stale = (await t.app.inject('/api/health')).json().catalogue.stale;
        if (!stale) await new Promise((r) => setTimeout(r, 50));
      }
      expect(stale).toBe(true);
      expect(down.json()).toMatchObject({ status: 'unavailable', database: { kind: 'postgres', status: 'down' } });
      expect(down.json().catalogue.sessions).toBeGreaterThan(0);
      // Reads keep being served from the in-memory catalogue meanwhile.
      const during = await t.app.inject('/api/stages?limit=1');
      expect(during.statusCode).toBe(200);
      expect(during.json().data).toEqual(before.json().data);
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
      const up = await t.app.inject('/api/health');
      expect(up.statusCode).toBe(200);
      expect(up.json().database.status).toBe('up');
      // The change listener reconnected by itself: a write made now still reaches the read model.
      const first = before.json().data[0];
      await t.db.database.db
        .update(stageSessions)
        .set({ spotsAvailable: first.spotsAvailable === 1 ? 2 : 1 })
        .where(eq(stageSessions.id, first.id));
      let seen: number | undefined;
      for (let i = 0; i < 200 && seen !== (first.spotsAvailable === 1 ? 2 : 1); i++) {
        await new Promise((r) => setTimeout(r, 50));
        seen = (await t.app.inject('/api/stages?limit=1')).json().data[0].spotsAvailable;
      }
      expect(seen).toBe(first.spotsAvailable === 1 ? 2 : 1);
      expect((await t.app.inject('/api/health')).json().catalogue.stale).toBe(false);
    } else {
      // The embedded database lives in the process: closing it is its outage.
      await t.db.database.close();
      const down = await t.app.inject('/api/health');
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ status: 'unavailable', database: { kind: 'pglite', status: 'down' } });
      expect(JSON.stringify(down.json())).not.toMatch(/stack|Error:/);
      const during = await t.app.inject('/api/stages?limit=1');
      expect(during.json().data).toEqual(before.json().data);
    }
  });
});
