import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/admin/api-keys.js';
import { buildApp } from '../../src/app.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

const rows = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

describe('operating the write side', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  });
  afterAll(() => t.close());

  it('prunes the change log and stored idempotent answers after a day, keeping recent ones', async () => {
    const { key, identity } = await createApiKey(t.app.database.db, { name: 'ops', role: 'admin', centreId: null });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${SESSIONS.bourgMar14.id}/places`,
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'k-1' },
      payload: { change: -1 },
    });
    expect(res.statusCode).toBe(200);
    const db = t.app.database.db;
    await db.execute(
      sql`update catalogue_changes set changed_at = now() - interval '2 days' where version < (select max(version) from catalogue_changes)`,
    );
    await db.execute(
      sql`insert into idempotency_keys (api_key_id, key, request_hash, status, body, created_at) values (${identity.id}, 'old', 'h', 200, '{}', now() - interval '2 days')`,
    );
    const before = rows(await db.execute(sql`select count(*)::int as n from catalogue_changes`))[0]?.n as number;
    expect(before).toBeGreaterThan(1);
    await t.app.catalogue.prune(new Date());
    expect(rows(await db.execute(sql`select count(*)::int as n from catalogue_changes`))[0]?.n).toBe(1);
    expect(rows(await db.execute(sql`select key from idempotency_keys order by key`)).map((r) => r.key)).toEqual([
      'k-1',
    ]);
  });
});

describe('logs and the API-key tier', () => {
  it("logs each write with the key's id and name, never the key; limits each key on its own budget", async () => {
    const db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    const lines: string[] = [];
    const app = await buildApp(testConfig({ RATE_LIMIT: 'on', RATE_LIMIT_ADMIN: '3', RATE_LIMIT_ANONYMOUS: '100' }), {
      database: db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      const ops = await createApiKey(db.database.db, { name: 'ops team', role: 'admin', centreId: null });
      const partner = await createApiKey(db.database.db, {
        name: 'centre lyon',
        role: 'partner',
        centreId: CENTRES.lyon.id,
      });
      const call = (key: string) =>
        app.inject({
          method: 'PATCH',
          url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
          headers: { authorization: `Bearer ${key}` },
          payload: { priceEuros: 231 },
        });
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await call(ops.key)).statusCode);
      expect(codes).toEqual([200, 200, 200, 429]);
      const limited = await call(ops.key);
      expect(limited.json().detail).toContain('this API key');
      // Another key has its own budget.
      expect((await call(partner.key)).statusCode).toBe(200);

      const writes = lines
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'request answered' && l.method === 'PATCH');
      expect(writes.length).toBeGreaterThanOrEqual(5);
      expect(writes[0].apiKey).toEqual({ id: ops.identity.id, name: 'ops team' });
      expect(writes.at(-1).apiKey).toEqual({ id: partner.identity.id, name: 'centre lyon' });
      const all = lines.join('\n');
      expect(all).not.toContain(ops.key);
      expect(all).not.toContain(partner.key);
      expect(all).not.toContain(ops.key.slice(20));
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});
