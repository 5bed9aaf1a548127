import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { BASE_URL, buildTestApp, type TestApp, testConfig } from '../helpers/app.js';
import { openTestDatabase, TEST_DB, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';

const ON = { RATE_LIMIT: 'on' };
const rpc = (id = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'list_articles', arguments: { limit: 1 } },
  });

type App = TestApp['app'];
const stages = (app: App, remoteAddress = '198.51.100.7', headers: Record<string, string> = {}) =>
  app.inject({ url: '/api/stages?limit=1', remoteAddress, headers });
const mcp = (app: App, headers: Record<string, string> = {}, remoteAddress = '198.51.100.7') =>
  app.inject({
    method: 'POST',
    url: '/api/mcp',
    remoteAddress,
    headers: { 'content-type': 'application/json', ...headers },
    payload: rpc(),
  });

/** Registers a client and gets an access token through the real OAuth endpoints. */
async function token(app: App, name: string): Promise<string> {
  const reg = await app.inject({ method: 'POST', url: '/api/oauth/register', payload: { client_name: name } });
  expect(reg.statusCode).toBe(201);
  const { client_id, client_secret } = reg.json();
  const tok = await app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }).toString(),
  });
  expect(tok.statusCode).toBe(200);
  return tok.json().access_token;
}

// Each test builds an app with its own limits; the budgets live in the app (or in Redis), not in
// the database, which they share: one per file rather than one per test.
let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.dispose());
const build = (env: Record<string, string>) => buildTestApp({ env, database: db });

let t: TestApp | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await t?.close();
  t = undefined;
});

describe('rate limits', () => {
  it('lets an anonymous address make its budget of requests, then answers 429 with Retry-After', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '3' });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await stages(t.app));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((r) => r.headers['ratelimit-limit'])).toEqual(['3', '3', '3']);
    expect(answers.map((r) => r.headers['ratelimit-remaining'])).toEqual(['2', '1', '0']);
    expect(Number(answers[0]?.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(answers[0]?.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);

    const refused = await stages(t.app);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ status: 429, title: 'Too Many Requests', code: 'rate_limited' });
    expect(refused.json().detail).toMatch(/3 requests per 60 s/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers['ratelimit-remaining']).toBe('0');

    // Another address has its own budget; health and discovery documents are outside budgets.
    expect((await stages(t.app, '198.51.100.8')).statusCode).toBe(200);
    for (const url of [
      '/api/health',
      '/openapi.json',
      '/llms.txt',
      '/.well-known/oauth-authorization-server',
      '/.well-known/jwks.json',
      '/.well-known/mcp/server-card.json',
      '/api/mcp/server-card',
    ]) {
      expect((await t.app.inject({ url, remoteAddress: '198.51.100.7' })).statusCode, url).toBe(200);
    }
  });

  it('opens the budget again once Retry-After has passed', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1', RATE_LIMIT_WINDOW_SECONDS: '1' });
    expect((await stages(t.app)).statusCode).toBe(200);
    const refused = await stages(t.app);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    // The in-memory store reads the time from Date.now(): move that on past the window rather
    // than wait for it.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1100, shouldAdvanceTime: true });
    expect((await stages(t.app)).statusCode).toBe(200);
  });

  it('answers 429 on the MCP endpoint as a JSON-RPC error', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1' });
    expect((await mcp(t.app)).statusCode).toBe(200);
    const refused = await mcp(t.app);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: 1 });
    expect(refused.json().error.message).toMatch(/Rate limit reached for this address/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const named = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      remoteAddress: '198.51.100.7',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 'call-7', method: 'tools/list' }),
    });
    expect(named.statusCode).toBe(429);
    expect(named.json()).toMatchObject({ id: 'call-7', error: { code: -32000 } });
    expect(Number(named.headers['retry-after'])).toBeGreaterThan(0);
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      remoteAddress: '198.51.100.7',
      headers: { 'content-type': 'application/json' },
      payload: '{"jsonrpc": "2.0", "id": 3,',
    });
    expect(notJson.statusCode).toBe(429);
    expect(notJson.json()).toMatchObject({ id: null });
  });

  it('points an anonymous MCP client out of budget to the higher tier: a challenge without error, the same in data; never a 401', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1', RATE_LIMIT_AUTHENTICATED: '1' });
    const first = await mcp(t.app);
    expect(first.statusCode).toBe(200);
    expect(first.headers['www-authenticate']).toBeUndefined();
    const refused = await mcp(t.app);
    expect(refused.statusCode).toBe(429);
    const metadata = `${BASE_URL}/.well-known/oauth-protected-resource/api/mcp`;
    const challenge = `Bearer resource_metadata="${metadata}"`;
    expect(refused.headers['www-authenticate']).toBe(challenge);
    expect(refused.json()).toMatchObject({
      id: 1,
      error: { code: -32000, data: { resource_metadata: metadata, www_authenticate: challenge } },
    });
    // The metadata it names is the one the service publishes, naming the authorization server.
    const doc = await t.app.inject(new URL(metadata).pathname);
    expect(doc.statusCode).toBe(200);
    expect(doc.json()).toMatchObject({ resource: `${BASE_URL}/api/mcp`, authorization_servers: [BASE_URL] });

    // A client already on the higher tier is told nothing of the kind.
    const bearer = { authorization: `Bearer ${await token(t.app, 'agent')}` };
    expect((await mcp(t.app, bearer, '198.51.100.8')).statusCode).toBe(200);
    const spent = await mcp(t.app, bearer, '198.51.100.8');
    expect(spent.statusCode).toBe(429);
    expect(spent.headers['www-authenticate']).toBeUndefined();
    expect(spent.json().error.data).toBeUndefined();
  });

  it('names the higher tier in an anonymous REST 429: a sentence and a link', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1' });
    expect((await stages(t.app)).statusCode).toBe(200);
    const refused = await stages(t.app);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['www-authenticate']).toBeUndefined();
    const { higherTier } = refused.json();
    expect(higherTier.detail).toMatch(/Registered clients get a higher one/);
    expect(higherTier.detail).toContain(`${BASE_URL}/api/mcp`);
    expect(higherTier.detail).toMatch(/client_credentials/);
    expect(higherTier.href).toBe(`${BASE_URL}/llms.txt`);
    const doc = await t.app.inject('/llms.txt');
    expect(doc.statusCode).toBe(200);
    expect(doc.body).toMatch(/Authorization: Bearer/);
  });

  it('gives the site’s pages a budget of their own per address, apart from the API’s, and still stops a flood', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_PAGES: '5' });
    const page = (url: string) =>
      t?.app.inject({ url, remoteAddress: '198.51.100.20', headers: { accept: 'text/html,*/*;q=0.8' } });
    // A crawler walking the pages does not spend the API's budget, nor the other way round.
    for (const url of ['/', '/departements/69', '/articles', '/', '/departements/13'])
      expect((await page(url))?.statusCode).toBe(200);
    expect((await stages(t.app, '198.51.100.20')).statusCode).toBe(200);
    const flood = await page('/');
    expect(flood?.statusCode).toBe(429);
    expect(flood?.headers['content-type']).toMatch(/^text\/html/);
    expect(flood?.headers['retry-after']).toBeDefined();
    expect(flood?.body).toContain('Trop de requêtes'); // a browser gets a page it can read
    // The API's budget was spent by its own request only; another address's pages are untouched.
    expect((await stages(t.app, '198.51.100.20')).statusCode).toBe(200);
    expect((await stages(t.app, '198.51.100.20')).statusCode).toBe(429);
    expect((await t.app.inject({ url: '/', remoteAddress: '198.51.100.21' })).statusCode).toBe(200);
  });

  it('does not charge the handshake notification nor the GET probe of older clients', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '2' });
    const post = (body: unknown) =>
      t!.app.inject({
        method: 'POST',
        url: '/api/mcp',
        remoteAddress: '198.51.100.9',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    expect(init.statusCode).toBe(200);
    expect(init.headers['ratelimit-remaining']).toBe('1');
    for (let i = 0; i < 5; i++) {
      expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).statusCode).toBe(202);
      const probe = await t.app.inject({ method: 'GET', url: '/api/mcp', remoteAddress: '198.51.100.9' });
      expect(probe.statusCode).toBe(405);
    }
    const list = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(list.statusCode).toBe(200);
    expect(list.headers['ratelimit-remaining']).toBe('0');
    // Anything else is counted, a notification of another kind included.
    const other = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    expect(other.statusCode).toBe(429);
    // A request merely naming the notification's method is a request: counted.
    const disguised = await post({ jsonrpc: '2.0', id: 9, method: 'notifications/initialized' });
    expect(disguised.statusCode).toBe(429);
    expect(disguised.json()).toMatchObject({ id: 9 });
  });

  it('gives a valid token its own, higher budget per client: two clients on one address do not share', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '2', RATE_LIMIT_AUTHENTICATED: '4' });
    const [a, b] = [await token(t.app, 'agent A'), await token(t.app, 'agent B')];
    const codes = async (headers: Record<string, string>, n: number) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) out.push((await mcp(t!.app, headers)).statusCode);
      return out;
    };
    expect(await codes({ authorization: `Bearer ${a}` }, 5)).toEqual([200, 200, 200, 200, 429]);
    const first = await mcp(t.app, { authorization: `Bearer ${b}` });
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-limit']).toBe('4');
    // The anonymous budget of the same address is untouched by the clients' calls.
    expect(await codes({}, 3)).toEqual([200, 200, 429]);
  });

  it('answers an invalid token with 401, never downgraded to anonymous, and counts it against the address', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '2' });
    expect((await mcp(t.app)).statusCode).toBe(200);
    const forged = await mcp(t.app, { authorization: 'Bearer not.a.token' });
    expect(forged.statusCode).toBe(401);
    expect(forged.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(forged.headers['ratelimit-remaining']).toBe('0');
    expect((await mcp(t.app, { authorization: 'Bearer not.a.token' })).statusCode).toBe(429);
  });

  it('limits registration and token requests more tightly, in OAuth error format', async () => {
    t = await build({ ...ON, RATE_LIMIT_REGISTER_PER_HOUR: '2', RATE_LIMIT_TOKEN: '2' });
    const register = () =>
      t!.app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        remoteAddress: '203.0.113.9',
        payload: { client_name: 'x' },
      });
    expect((await register()).statusCode).toBe(201);
    expect((await register()).statusCode).toBe(201);
    const refused = await register();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(refused.json().error_description).toMatch(/2 requests per hour/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);

    const tokenRequest = () =>
      t!.app.inject({
        method: 'POST',
        url: '/api/oauth/token',
        remoteAddress: '203.0.113.9',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=client_credentials&client_id=cl_unknown&client_secret=wrong',
      });
    expect((await tokenRequest()).statusCode).toBe(401);
    expect((await tokenRequest()).statusCode).toBe(401);
    expect((await tokenRequest()).statusCode).toBe(429);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says to believe it', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1' });
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(200);
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '192.0.2.2' })).statusCode).toBe(429);
    await t.close();

    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1', TRUST_PROXY: '1' });
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(200);
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '192.0.2.2' })).statusCode).toBe(200);
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(429);
    // Only the nearest hop is trusted: a spoofed address further left does not pick a bucket.
    expect((await stages(t.app, '10.0.0.1', { 'x-forwarded-for': '1.2.3.4, 192.0.2.1' })).statusCode).toBe(429);
  });

  it('counts an IPv6 /64 as one address', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '1' });
    expect((await stages(t.app, '2001:db8:1:2::1')).statusCode).toBe(200);
    expect((await stages(t.app, '2001:db8:1:2:ffff::9')).statusCode).toBe(429);
    expect((await stages(t.app, '2001:db8:1:3::1')).statusCode).toBe(200);
  });

  it('states the configured tiers in /llms.txt and in the OpenAPI 429 response', async () => {
    t = await build({ ...ON, RATE_LIMIT_ANONYMOUS: '42', RATE_LIMIT_AUTHENTICATED: '420' });
    const llms = (await t.app.inject('/llms.txt')).body;
    expect(llms).toContain('anonymous, 42 requests per 60 seconds per IP address');
    expect(llms).toContain('420 requests per 60 seconds per client');
    const doc = (await t.app.inject('/openapi.json')).json();
    const tooMany = doc.paths['/api/stages'].get.responses['429'];
    expect(tooMany.description).toContain('42 requests per 60 s per IP address');
    expect(tooMany.description).toContain('420 per 60 s per client');
  });

  it('can be switched off', async () => {
    t = await build({ RATE_LIMIT: 'off', RATE_LIMIT_ANONYMOUS: '1' });
    const res = [await stages(t.app), await stages(t.app), await stages(t.app)];
    expect(res.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(res[0]?.headers['ratelimit-limit']).toBeUndefined();
    expect((await t.app.inject('/api/health')).json().rateLimit).toBeUndefined();
  });
});

/** A private Redis server for this file, so that it can be stopped and started under the app. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  for await (const chunk of child.stdout!) {
    if (String(chunk).includes('Ready to accept connections')) break;
  }
  child.stdout?.resume();
  return child;
}

describe('rate limits shared through Redis', () => {
  let port: number;
  let redis: ChildProcess;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
  });
  afterAll(async () => {
    if (redis.exitCode === null) {
      redis.kill();
      await once(redis, 'exit');
    }
  });

  it('shares one budget between two instances, and keeps serving while Redis is down', {
    timeout: 60_000,
  }, async () => {
    // A generous Redis timeout: on a loaded machine a call can stall past the default 250 ms, and
    // would then pass unlimited (fail open), which this test is not about.
    const env = {
      ...ON,
      RATE_LIMIT_ANONYMOUS: '3',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
    };
    t = await build(env);
    // A second instance of the service on the same database and the same Redis.
    const other =
      TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : t.db.database; // PGlite is one process's own: the second app shares the handle
    const app2 = await buildApp(testConfig(env), { database: other, logger: false });
    try {
      const until = async (ok: () => Promise<boolean>) => {
        for (let i = 0; i < 100 && !(await ok()); i++) await new Promise((r) => setTimeout(r, 50));
      };
      // Both instances connected: a request while its connection is not ready yet passes uncounted.
      for (const app of [t.app, app2])
        await until(async () => (await app.inject('/api/health')).json().rateLimit?.status === 'up');
      expect((await t.app.inject('/api/health')).json().rateLimit).toEqual({ store: 'redis', status: 'up' });
      expect((await app2.inject('/api/health')).json().rateLimit).toEqual({ store: 'redis', status: 'up' });

      const ip = '192.0.2.44';
      const codes = [
        (await stages(t.app, ip)).statusCode,
        (await stages(app2, ip)).statusCode,
        (await stages(t.app, ip)).statusCode,
        (await stages(app2, ip)).statusCode,
      ];
      expect(codes).toEqual([200, 200, 200, 429]);

      // Redis goes away: requests are let through, and health says so.
      redis.kill('SIGKILL');
      await once(redis, 'exit');
      await until(async () => (await t!.app.inject('/api/health')).json().rateLimit?.status === 'down');
      const health = await t.app.inject('/api/health');
      expect(health.statusCode).toBe(200);
      expect(health.json().rateLimit).toEqual({ store: 'redis', status: 'down' });
      for (let i = 0; i < 5; i++) expect((await stages(app2, ip)).statusCode).toBe(200);

      // Redis comes back (empty, as after a restart): limiting resumes.
      redis = await startRedis(port);
      await until(async () => (await app2.inject('/api/health')).json().rateLimit?.status === 'up');
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await stages(i % 2 ? app2 : t.app, ip)).statusCode);
      expect(after).toEqual([200, 200, 200, 429]);
    } finally {
      await app2.close();
      if (other !== t.db.database) await other.close();
    }
  });
});
