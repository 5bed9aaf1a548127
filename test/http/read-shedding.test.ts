import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLoopLag } from '../../src/http/read-shedding.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/**
 * READ_SHED_LAG_MS: while the event loop lags past the bound, the public search's reads get a 503
 * problem with Retry-After; writes, health and the rest go on. The lag is injected here.
 */
describe('admission of reads under load', () => {
  let t: TestApp;
  let lag = 0;
  beforeAll(async () => {
    t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { READ_SHED_LAG_MS: '100' },
      eventLoopLag: () => lag,
    });
  });
  afterAll(() => t.close());

  it('sheds the search reads past the bound with 503, problem+json and Retry-After, and lets writes through', async () => {
    lag = 150;
    for (const url of ['/api/stages?dept=69', `/api/stages/${SESSIONS.lyonMar5.id}`, '/api/stages']) {
      const res = await t.app.inject({ url });
      expect(res.statusCode, url).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.json()).toMatchObject({ status: 503, code: 'overloaded' });
    }
    expect((await t.app.inject({ url: '/api/health' })).statusCode).toBe(200);
    const write = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: (await keysFor(t.app, CENTRES.lyon.id)).admin,
      payload: { priceEuros: 242 },
    });
    expect(write.statusCode).toBe(200);
    // A path that merely begins like the search's is not one of its reads.
    expect((await t.app.inject({ url: '/api/stagesx' })).statusCode).toBe(404);
  });

  it('answers them again once the lag is back under the bound', async () => {
    lag = 100;
    const res = await t.app.inject({ url: '/api/stages?city=lyon' });
    expect(res.statusCode).toBe(200);
    expect((res.json() as { data: { id: string; priceEuros: number }[] }).data).toContainEqual(
      expect.objectContaining({ id: SESSIONS.lyonMar5.id, priceEuros: 242 }),
    );
  });
});

describe('without READ_SHED_LAG_MS', () => {
  it('sheds nothing, whatever the lag', async () => {
    const t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, eventLoopLag: () => 10_000 });
    try {
      expect((await t.app.inject({ url: '/api/stages?dept=69' })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('the event loop lag', () => {
  it('shows a turn that held the loop', async () => {
    const lag = eventLoopLag();
    try {
      await new Promise((r) => setTimeout(r, 50));
      const until = performance.now() + 150;
      while (performance.now() < until) {
        // holds the event loop, as a long piece of work would
      }
      await new Promise((r) => setTimeout(r, 5)); // after the late sample, before the next (every 20 ms)
      expect(lag.lagMs()).toBeGreaterThan(100);
    } finally {
      lag.stop();
    }
  });
});
