import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { openStream } from '../helpers/sse.js';

let t: TestApp;
let base: string;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({
    catalogue: FIXTURE_CATALOGUE,
    clock: frozenClock(FIXTURE_NOW),
    env: { EVENTS_HEARTBEAT_SECONDS: '1', EVENTS_MAX_PER_ADDRESS: '3' },
  });
  keys = await keysFor(t.app, CENTRES.lyon.id);
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const places = (id: string, change: number) =>
  t.app.inject({ method: 'POST', url: `/api/admin/sessions/${id}/places`, headers: keys.admin, payload: { change } });

describe('GET /api/stages/events', () => {
  it('streams one event per changed session, each version closed by its id, with a heartbeat', async () => {
    const stream = await openStream(`${base}/api/stages/events`);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await stream.until((e) => e.some((x) => x.retry === '2000'));
    // The first block names the version the stream starts from: a client ended before any change resumes there.
    expect(stream.events[0]?.id).toBe(String(t.app.catalogue.snapshot.version));

    expect((await places(SESSIONS.lyonMar5.id, -1)).statusCode).toBe(200);
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.parisMar12.id}`,
      headers: keys.admin,
      payload: { status: 'cancelled' },
    });
    await stream.until(() => stream.sessions().length >= 2);
    const [first, second] = stream.sessions();
    expect(first).toMatchObject({ id: SESSIONS.lyonMar5.id, status: 'available', spotsAvailable: 2, priceEuros: 239 });
    expect(first.lastId).toBe(String(first.version));
    expect(second).toMatchObject({ id: SESSIONS.parisMar12.id, status: 'cancelled' });
    expect(Number(second.lastId)).toBeGreaterThan(Number(first.lastId));
    await stream.until((e) => e.some((x) => x.comment === 'heartbeat'), 2500);
    await stream.close();
  });

  it('resumes after Last-Event-ID with what was missed, each session once, and nothing twice', async () => {
    const stream = await openStream(`${base}/api/stages/events`);
    await stream.until((e) => e.some((x) => x.retry));
    await places(SESSIONS.bourgMar14.id, -1);
    await stream.until(() => stream.sessions().length === 1);
    const lastSeen = stream.sessions()[0].lastId as string;
    await stream.close();

    // Missed while away: two changes to one session, one to another.
    await places(SESSIONS.bourgMar14.id, -1);
    await places(SESSIONS.bourgMar14.id, -1);
    await places(SESSIONS.ajaccioMar13.id, -3);
    const version = t.app.catalogue.snapshot.version;

    const resumed = await openStream(`${base}/api/stages/events`, { headers: { 'last-event-id': lastSeen } });
    await resumed.until(() => resumed.sessions().length >= 2);
    await places(SESSIONS.ajaccioMar13.id, 1);
    await resumed.until(() => resumed.sessions().length >= 3);
    const got = resumed.sessions();
    expect(
      got
        .slice(0, 2)
        .map((s) => s.id)
        .sort(),
    ).toEqual([SESSIONS.bourgMar14.id, SESSIONS.ajaccioMar13.id].sort());
    expect(got.find((s) => s.id === SESSIONS.bourgMar14.id)?.spotsAvailable).toBe(17);
    expect(got.find((s) => s.id === SESSIONS.ajaccioMar13.id)?.spotsAvailable).toBe(7);
    expect(got[1]?.lastId).toBe(String(version));
    expect(got[2]).toMatchObject({ id: SESSIONS.ajaccioMar13.id, spotsAvailable: 8, lastId: String(version + 1) });
    await resumed.close();

    // The same through ?lastEventId= (EventSource cannot set headers on its first connection).
    const byQuery = await openStream(`${base}/api/stages/events?lastEventId=${version}`);
    await byQuery.until(() => byQuery.sessions().length >= 1);
    expect(byQuery.sessions()).toEqual([expect.objectContaining({ id: SESSIONS.ajaccioMar13.id, spotsAvailable: 8 })]);
    await byQuery.close();
  });

  it('says reset when the log cannot tell what was missed', async () => {
    const stream = await openStream(`${base}/api/stages/events`, { headers: { 'last-event-id': '1' } });
    await stream.until((e) => e.some((x) => x.event === 'reset'));
    const reset = stream.events.find((x) => x.event === 'reset');
    expect(JSON.parse(reset?.data as string)).toEqual({ version: t.app.catalogue.snapshot.version });
    await stream.close();
  });

  it("gives a fresh stream's first event an id, so that a client ended before any change resumes from it", async () => {
    const version = t.app.catalogue.snapshot.version;
    const stream = await openStream(`${base}/api/stages/events`);
    await stream.until((e) => e.some((x) => x.id !== undefined));
    const first = stream.events.find((x) => x.id !== undefined);
    // With data: EventSource clients on eventsource-parser (npm eventsource) keep no id of an event without.
    expect(first).toMatchObject({ event: 'ready', id: String(version) });
    expect(JSON.parse(first?.data as string)).toEqual({ version });
    expect(stream.sessions()).toEqual([]);
    await stream.close();

    await places(SESSIONS.lyonMar5.id, 1);
    const resumed = await openStream(`${base}/api/stages/events`, {
      headers: { 'last-event-id': first?.id as string },
    });
    await resumed.until(() => resumed.sessions().length >= 1);
    expect(resumed.sessions()).toEqual([
      expect.objectContaining({ id: SESSIONS.lyonMar5.id, spotsAvailable: 3, lastId: String(version + 1) }),
    ]);
    await resumed.close();
  });

  it('refuses a bad Last-Event-ID, and a 4th stream from one address', async () => {
    const bad = await fetch(`${base}/api/stages/events`, { headers: { 'last-event-id': 'yesterday' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect((await bad.json()).errors[0].name).toBe('Last-Event-ID');
    const streams = await Promise.all([1, 2, 3].map(() => openStream(`${base}/api/stages/events`)));
    const fourth = await fetch(`${base}/api/stages/events`);
    expect(fourth.status).toBe(429);
    expect((await fourth.json()).code).toBe('too_many_streams');
    await Promise.all(streams.map((s) => s.close()));
    // Closed streams free their places.
    await new Promise((r) => setTimeout(r, 50));
    const again = await openStream(`${base}/api/stages/events`);
    expect(again.res.status).toBe(200);
    await again.close();
  });

  it("is not cut by the server's idle or request timeouts: a quiet stream stays open between heartbeats", async () => {
    // What Fastify's connectionTimeout, requestTimeout and keepAliveTimeout set on the HTTP server.
    const server = t.app.server;
    const saved = [server.timeout, server.requestTimeout, server.headersTimeout, server.keepAliveTimeout] as const;
    server.timeout = 100;
    server.requestTimeout = 100;
    server.headersTimeout = 100;
    server.keepAliveTimeout = 100;
    try {
      const stream = await openStream(`${base}/api/stages/events`);
      await stream.until((e) => e.some((x) => x.retry));
      // Quiet for four idle timeouts (the heartbeat comes every second).
      await new Promise((r) => setTimeout(r, 400));
      await places(SESSIONS.stEtienneMar5.id, -1);
      await stream.until(() => stream.sessions().some((s) => s.id === SESSIONS.stEtienneMar5.id));
      await stream.close();
    } finally {
      [server.timeout, server.requestTimeout, server.headersTimeout, server.keepAliveTimeout] = saved;
    }
  });

  it('ends open streams when the server closes, rather than holding the shutdown', async () => {
    const other = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    const url = await other.app.listen({ port: 0, host: '127.0.0.1' });
    const stream = await openStream(`${url}/api/stages/events`);
    await stream.until((e) => e.length > 0);
    const started = Date.now();
    await other.close();
    await stream.ended;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
