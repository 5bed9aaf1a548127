import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { placeHolds } from '../../src/db/schema.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { placesLeft } from '../helpers/booking.js';
import { type ClaimedAgent, claimedAgent } from '../helpers/claim.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { holdPlace, holdRequest } from '../helpers/holds.js';
import { connect, ERAS } from '../helpers/mcp.js';
import { tokenFor } from '../helpers/oauth.js';

/*
 * What becomes of holds after they are taken (issue 26): a session its centre cancels lets its
 * holds go, and their expiry later gives nothing back; ended holds are forgotten 30 days on (the
 * expiry job, on the service's clock); an instance without the site holds nothing; an expired
 * claimed token says which scopes to ask again.
 */

const DAY_MS = 86_400_000;
const TTL_MS = 900_000;
// Sessions still to come 31 days after the fixture's today.
const JUNE = [
  {
    ...SESSIONS.bourgMar14,
    id: '10000000-0000-4000-8000-0000000006a1',
    courseNumber: 'JUIN-1',
    day1: '2030-06-11',
    day2: '2030-06-12',
  },
  {
    ...SESSIONS.ajaccioMar13,
    id: '10000000-0000-4000-8000-0000000006a2',
    courseNumber: 'JUIN-2',
    day1: '2030-06-13',
    day2: '2030-06-14',
  },
];
let t: TestApp;
const clock = frozenClock(FIXTURE_NOW);
let agent: ClaimedAgent;

beforeAll(async () => {
  t = await buildTestApp({
    catalogue: { ...FIXTURE_CATALOGUE, sessions: [...FIXTURE_CATALOGUE.sessions, ...JUNE] },
    clock,
  });
  agent = await claimedAgent(t.app, 'ines.carpentier@example.org', 'hold');
});
afterAll(() => t?.close());

const at = (ms: number) => clock.set(new Date(Date.parse(FIXTURE_NOW) + ms).toISOString());
/** A token of the claimed agent with "hold", issued now (on the moved clock). */
const holdToken = () => tokenFor(t.app, agent.client, { scope: 'read hold' });

/** The session's counters as stored: on sale and held here. */
async function counters(sessionId: string) {
  const result = await t.app.database.db.execute(
    sql`select spots_available, held_here from stage_sessions where id = ${sessionId}`,
  );
  return (result as unknown as { rows: Array<{ spots_available: number; held_here: number }> }).rows[0];
}

describe('a session its centre cancels', () => {
  it('releases its active holds at once; their expiry later gives no place back', async () => {
    at(0);
    const id = SESSIONS.stEtienneMar5.id;
    const held = await holdPlace(t.app, agent.token, id);
    expect(held.statusCode, held.body).toBe(201);
    const hold = held.json();
    expect(await counters(id)).toEqual({ spots_available: 11, held_here: 1 });

    const keys = await keysFor(t.app, CENTRES.stEtienne.id);
    const cancelled = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: keys.partner,
      payload: { status: 'cancelled' },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const read = await holdRequest(t.app, 'GET', agent.token, hold.holdId);
    expect(read.json()).toEqual({ ...hold, state: 'released' });
    // Nothing held here any more, and the places on sale as the cancellation left them.
    expect(await counters(id)).toEqual({ spots_available: 11, held_here: 0 });

    // Releasing it gives nothing back.
    const release = await holdRequest(t.app, 'DELETE', agent.token, hold.holdId);
    expect(release.statusCode).toBe(200);
    expect(release.json().state).toBe('released');
    expect(await counters(id)).toEqual({ spots_available: 11, held_here: 0 });
    // Its time passes and the job runs: no place comes back to a cancelled session. (The trigger
    // stamps ended_at by the database's clock, years before the fixture's: the same job may then
    // forget the hold, which is why its state is not read again here.)
    at(TTL_MS);
    await t.app.jobs.drain();
    expect(await counters(id)).toEqual({ spots_available: 11, held_here: 0 });
    // The page of the hold says the place was given back.
    const page = await t.app.inject(new URL(hold.completeUrl).pathname + new URL(hold.completeUrl).search);
    expect(page.body).not.toContain('est mise de côté pour vous jusqu’à');
  });
});

describe('ended holds', () => {
  it('are deleted by the expiry job 30 days after they ended, not before', async () => {
    const [june11, june13] = JUNE.map((j) => j.id) as [string, string];
    at(DAY_MS);
    let token = await holdToken();
    const released = (await holdPlace(t.app, token, SESSIONS.bourgMar14.id)).json();
    expect((await holdRequest(t.app, 'DELETE', token, released.holdId)).json().state).toBe('released');
    const expiring = (await holdPlace(t.app, token, SESSIONS.ajaccioMar13.id)).json();
    at(DAY_MS + TTL_MS);
    await t.app.jobs.drain();
    expect((await holdRequest(t.app, 'GET', token, expiring.holdId)).json().state).toBe('expired');

    const stored = async (holdId: string) =>
      (await t.app.database.db.select({ id: placeHolds.id }).from(placeHolds).where(eq(placeHolds.id, holdId))).length;
    // A later hold's expiry job runs just under 30 days after they ended: both are kept.
    const ended = DAY_MS + TTL_MS;
    at(ended + 30 * DAY_MS - 2 * TTL_MS);
    token = await holdToken();
    const later = (await holdPlace(t.app, token, june11)).json();
    expect(later.state).toBe('active');
    at(ended + 30 * DAY_MS - TTL_MS);
    await t.app.jobs.drain();
    expect((await holdRequest(t.app, 'GET', token, later.holdId)).json().state).toBe('expired');
    expect(await stored(released.holdId)).toBe(1);
    expect(await stored(expiring.holdId)).toBe(1);

    // The next one's, past 30 days: the two are gone (the agent reads 404); the later ones are kept.
    const last = (await holdPlace(t.app, token, june13)).json();
    expect(last.state).toBe('active');
    at(ended + 30 * DAY_MS + 1000);
    token = await holdToken();
    expect(await t.app.jobs.drain()).toBeGreaterThan(0);
    expect(await stored(released.holdId)).toBe(0);
    expect(await stored(expiring.holdId)).toBe(0);
    expect((await holdRequest(t.app, 'GET', token, released.holdId)).statusCode).toBe(404);
    expect(await stored(later.holdId)).toBe(1);
    expect(await stored(last.holdId)).toBe(1);
  });

  it('are deleted by the hourly sweep too, when no hold expires any more', async () => {
    const stored = async () => (await t.app.database.db.select({ id: placeHolds.id }).from(placeHolds)).length;
    expect(await stored()).toBeGreaterThan(0);
    // The last holds of the test above ended about 30 days after the first day; 31 days later, with no
    // job due, an instance's hourly sweep alone forgets them.
    at(DAY_MS + TTL_MS + 61 * DAY_MS);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const other = await buildTestApp({ database: t.db, clock });
    try {
      expect(await other.app.jobs.drain()).toBe(0);
      expect(await stored()).toBeGreaterThan(0);
      vi.advanceTimersByTime(3_600_000);
      await vi.waitFor(async () => expect(await stored()).toBe(0), { timeout: 5000, interval: 20 });
    } finally {
      await other.close();
      vi.useRealTimers();
    }
  });
});

describe('an instance without the site (SITE=off)', () => {
  it('answers hold_place and POST holds with holds_unavailable, taking nothing', async () => {
    at(0);
    // The same database, served by an instance of the operator's that has no booking pages.
    const off = await buildTestApp({
      database: t.db,
      clock,
      env: {
        SITE: 'off',
        BOOKING_URL_TEMPLATE: 'https://www.exemple-operateur.fr/stages/{id}',
        CENTRE_URL_TEMPLATE: 'https://www.exemple-operateur.fr/centres/{slug}',
      },
    });
    try {
      const id = SESSIONS.lyonMar5.id;
      const before = await placesLeft(off.app, id);
      const res = await holdPlace(off.app, agent.token, id, { idempotencyKey: 'sans-site' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json()).toMatchObject({ status: 503, code: 'holds_unavailable' });
      expect(res.json().detail).toContain('holds no places');
      expect((await holdRequest(off.app, 'GET', agent.token, 'hld_AAAAAAAAAAAAAAAAAAAAAA')).statusCode).toBe(503);

      const endpoint = new URL('/api/mcp', await off.app.listen({ port: 0, host: '127.0.0.1' }));
      const client = await connect(endpoint, ERAS[0] as (typeof ERAS)[number], {
        authorization: `Bearer ${agent.token}`,
      });
      try {
        const out = (await client.callTool({ name: 'hold_place', arguments: { sessionId: id } })) as {
          isError?: boolean;
          content: Array<{ text?: string }>;
        };
        expect(out.isError).toBe(true);
        expect(out.content[0]?.text).toMatch(/^holds_unavailable: .*holds no places/);
      } finally {
        await client.close();
      }
      expect(await placesLeft(off.app, id)).toBe(before);
      expect(await placesLeft(t.app, id)).toBe(before);
    } finally {
      await off.close();
    }
  });
});

describe('an expired token of a claimed agent', () => {
  it('names the scopes to ask again in its challenge; a plain client’s does not', async () => {
    at(0);
    const plain = agent.readToken;
    const withHold = agent.token;
    at(2 * 3600_000);
    const expired = await holdPlace(t.app, withHold, SESSIONS.lyonMar5.id);
    expect(expired.statusCode).toBe(401);
    expect(expired.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token", .*scope="read hold"/);
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { authorization: `Bearer ${plain}`, 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(mcp.statusCode).toBe(401);
    expect(mcp.headers['www-authenticate']).not.toContain('scope=');
    at(0);
  });
});
