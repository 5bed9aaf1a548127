import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthClients } from '../../../src/db/schema.js';
import { frozenClock } from '../../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { type Registered, register, tokenFor } from '../../helpers/oauth.js';
import { buildProbeApp, PROBE_PATH } from '../../helpers/probe-app.js';
import { activeKey, claimsAt, sign } from '../../helpers/signer.js';

const NOW = '2030-03-04T09:00:00Z';
const clock = frozenClock(NOW);
const now = Math.floor(Date.parse(NOW) / 1000);
let db: TestDatabase;
let app: FastifyInstance;
let client: Registered;
let key: Awaited<ReturnType<typeof activeKey>>;

beforeAll(async () => {
  db = await openTestDatabase();
  app = await buildProbeApp(db.database, clock);
  client = await register(app);
  key = await activeKey(db.database.db);
});
afterAll(async () => {
  await app.close();
  await db.dispose();
});

const probe = (target: FastifyInstance, token: string) =>
  target.inject({ method: 'POST', url: PROBE_PATH, headers: { authorization: `Bearer ${token}` } });
const signed = (change: object, clientId = client.client_id) =>
  sign(key.privateKey, { ...claimsAt(clock.now(), clientId), ...change }, { kid: key.kid });

describe('tokens signed with the real key but not as this server issues them', () => {
  it.each([
    [
      'an iat a year in the future',
      { iat: now + 365 * 86_400, exp: now + 365 * 86_400 + 3600 },
      /issue time in the future/,
    ],
    ['an iat two minutes ahead', { iat: now + 120, exp: now + 3720 }, /issue time in the future/],
    ['an exp ten years ahead', { exp: now + 10 * 365 * 86_400 }, /lives longer/],
    ['a two-hour lifetime', { exp: now + 7200 }, /lives longer/],
  ])('refuses %s', async (_label, change, description) => {
    const res = await probe(app, await signed(change));
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(res.json().error.message).toMatch(description);
  });

  it('accepts the clock tolerance: an iat 20 s ahead, a lifetime of 3600 s + 20 s', async () => {
    expect((await probe(app, await signed({ iat: now + 20, exp: now + 3620 }))).statusCode).toBe(200);
  });

  it('refuses a client that was never registered', async () => {
    const res = await probe(app, await signed({}, 'cl_neverRegisteredXXXXXX'));
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toBe(
      'The access token was issued to a client that is not registered; register again.',
    );
  });

  it('refuses a client removed since (checked against the database, cached for a minute)', async () => {
    const gone = await register(app, { client_name: 'soon removed' });
    const token = await tokenFor(app, gone);
    expect((await probe(app, token)).statusCode).toBe(200);
    await db.database.db.delete(oauthClients).where(eq(oauthClients.clientId, gone.client_id));
    // Another instance (no cached answer) sees the removal at once.
    const other = await buildProbeApp(db.database, clock);
    try {
      const res = await probe(other, token);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.message).toMatch(/not registered/);
      // While a registered client keeps working there.
      expect((await probe(other, await tokenFor(app, client))).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
