import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import type { Database } from '../../../src/db/connect.js';
import { MCP_MAX_BATCH } from '../../../src/mcp/request-guards.js';
import { buildTestApp, type TestApp, testConfig } from '../../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';

const ON = { RATE_LIMIT: 'on' };
const IP = '198.51.100.20';
const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'search_stages', arguments: { limit: 1 } },
});
type App = TestApp['app'];
const post = (app: App, body: unknown, headers: Record<string, string> = {}, remoteAddress = IP) =>
  app.inject({
    method: 'POST',
    url: '/api/mcp',
    remoteAddress,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });

// Each test builds an app with its own limits; they share the file's database, which none writes.
let shared: TestDatabase;
beforeAll(async () => {
  shared = await openTestDatabase();
});
afterAll(() => shared.dispose());
const build = (env: Record<string, string> = {}) => buildTestApp({ env, database: shared });

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('JSON-RPC batches', () => {
  it('counts every message of a batch against the budget', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '5' });
    const first = await post(t.app, [call(1), call(2), call(3)]);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toHaveLength(3);
    expect(first.headers['ratelimit-remaining']).toBe('2');
    // Three more calls do not fit in the two left: the batch is refused whole, with Retry-After.
    const refused = await post(t.app, [call(4), call(5), call(6)]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post(t.app, call(7))).statusCode).toBe(429);
  });

  it(`refuses a batch of more than ${MCP_MAX_BATCH} messages, and batches where the revision has none`, async () => {
    t = await build();
    const big = await post(
      t.app,
      Array.from({ length: MCP_MAX_BATCH + 1 }, (_, i) => call(i)),
    );
    expect(big.statusCode).toBe(400);
    expect(big.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(big.json().error.message).toBe(
      `A JSON-RPC batch may hold at most ${MCP_MAX_BATCH} messages; this one holds ${MCP_MAX_BATCH + 1}.`,
    );
    for (const version of ['2025-06-18', '2025-11-25', '2026-07-28']) {
      const res = await post(t.app, [call(1), call(2)], { 'mcp-protocol-version': version });
      expect(res.statusCode, version).toBe(400);
      expect(res.json().error).toEqual({
        code: -32600,
        message: `JSON-RPC batches are not part of MCP revision ${version}: send one message per request.`,
      });
    }
    // A 2025-03-26 client (no version header) may still batch, within the cap.
    const ok = await post(
      t.app,
      Array.from({ length: MCP_MAX_BATCH }, (_, i) => call(i)),
    );
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toHaveLength(MCP_MAX_BATCH);
  });
});

describe('refusals count against the budget', () => {
  it('counts invalid-token 401s, then refuses further tokens from that address with 429', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '3' });
    let verifications = 0;
    const verify = t.app.accessTokens.verify.bind(t.app.accessTokens);
    t.app.accessTokens.verify = (token: string) => {
      verifications++;
      return verify(token);
    };
    const forged = (n: number) =>
      post(t!.app, call(1), { authorization: `Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl${n}` });
    const codes = [];
    for (let i = 0; i < 6; i++) codes.push((await forged(i)).statusCode);
    expect(codes).toEqual([401, 401, 401, 429, 429, 429]);
    // Once the address's budget is spent, a token is not even checked.
    expect(verifications).toBe(4);
    const last = await forged(9);
    expect(last.json()).toMatchObject({ error: { code: -32000 } });
    expect(last.json().error.message).toMatch(/Rate limit reached for this address/);
    // Rotating addresses inside one IPv6 /64 buys no more signature checks than one address.
    const before = verifications;
    const v6 = [];
    for (let i = 1; i <= 6; i++)
      v6.push(
        (
          await post(
            t.app,
            call(1),
            { authorization: `Bearer ${'a'.repeat(20)}.${'b'.repeat(20)}.c${i}` },
            `2001:db8:7::${i}`,
          )
        ).statusCode,
      );
    expect(v6).toEqual([401, 401, 401, 429, 429, 429]);
    expect(verifications - before).toBe(4);
    // And the address's anonymous calls share that spent budget.
    expect((await post(t.app, call(2))).statusCode).toBe(429);
    expect((await post(t.app, call(2), {}, '198.51.100.21')).statusCode).toBe(200);
  });

  it('counts Origin 403s and 404s', async () => {
    // Misses of the site's paths count in the pages' tier, the MCP refusals in the API's: both of 2.
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_PAGES: '2' });
    const evil = { origin: 'https://evil.example' };
    expect((await post(t.app, call(1), evil)).statusCode).toBe(403);
    expect((await post(t.app, call(1), evil)).statusCode).toBe(403);
    const refused = await post(t.app, call(1), evil);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe(-32000);

    const misses = [];
    for (let i = 0; i < 3; i++)
      misses.push(await t.app.inject({ url: `/wp-admin/${i}.php`, remoteAddress: '198.51.100.30' }));
    expect(misses.map((r) => r.statusCode)).toEqual([404, 404, 429]);
    expect(misses[2]?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(misses[2]?.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    // A miss under /api/ counts in the API's tier, which the Origin refusals of this address did not spend.
    const apiMisses = [];
    for (let i = 0; i < 3; i++)
      apiMisses.push(await t.app.inject({ url: `/api/nothing-${i}`, remoteAddress: '198.51.100.31' }));
    expect(apiMisses.map((r) => r.statusCode)).toEqual([404, 404, 429]);
  });
});

describe('/api/health under a flood', () => {
  it('answers a thousand concurrent calls with a handful of database round trips', async () => {
    let pings = 0;
    const database: Database = {
      ...shared.database,
      ping: (ms) => {
        pings++;
        return shared.database.ping(ms);
      },
    };
    const app = await buildApp(testConfig(), { database, logger: false });
    try {
      const answers = await Promise.all(Array.from({ length: 1000 }, () => app.inject('/api/health')));
      expect(answers.every((r) => r.statusCode === 200 && r.json().database.status === 'up')).toBe(true);
      expect(pings).toBeLessThanOrEqual(2);
    } finally {
      await app.close();
    }
  });
});

describe('x-request-id', () => {
  it('keeps a short plain id and replaces a long or odd one', async () => {
    t = await build();
    const id = async (value: string) =>
      (await t!.app.inject({ url: '/api/health', headers: { 'x-request-id': value } })).headers['x-request-id'];
    expect(await id('trace-123')).toBe('trace-123');
    expect(await id('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')).toBe(
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    );
    for (const bad of ['x'.repeat(129), 'a b', '<script>', 'é', 'x'.repeat(8000)]) {
      expect(await id(bad), bad.slice(0, 20)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});
