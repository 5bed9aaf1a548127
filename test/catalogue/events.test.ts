import { type ClientRequest, get, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

interface SseEvent {
  event?: string;
  data?: string;
  id?: string;
  comment?: string;
  retry?: string;
}

/**
 * An EventSource-style reader (blocks separated by a blank line, fields per line) over a socket of
 * its own, so that closing it leaves no pooled connection behind.
 */
async function openStream(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  let buffer = '';
  let request: ClientRequest | undefined;
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    request = get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, resolve);
    request.on('error', reject);
  });
  res.setEncoding('utf8');
  const ended = new Promise<void>((resolve) => {
    res.on('close', () => resolve());
    res.on('error', () => resolve());
  });
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.comment = line.slice(1).trim();
        else {
          const at = line.indexOf(':');
          const field = line.slice(0, at) as keyof SseEvent;
          event[field] = line.slice(at + 1).replace(/^ /, '');
        }
      }
      events.push(event);
      cut = buffer.indexOf('\n\n');
    }
  });
  return {
    res: { status: res.statusCode, headers: { get: (name: string) => res.headers[name] as string | undefined } },
    events,
    sessions: () =>
      events.filter((e) => e.event === 'session').map((e) => ({ ...JSON.parse(e.data as string), lastId: e.id })),
    async until(ok: (events: SseEvent[]) => boolean, ms = 3000) {
      const end = Date.now() + ms;
      while (!ok(events)) {
        if (Date.now() > end) throw new Error(`stream condition not met in ${ms} ms: ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close() {
      request?.destroy();
      return ended;
    },
    ended,
  };
}

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

    const resumed = await openStream(`${base}/api/stages/events`, { 'last-event-id': lastSeen });
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
    const stream = await openStream(`${base}/api/stages/events`, { 'last-event-id': '1' });
    await stream.until((e) => e.some((x) => x.event === 'reset'));
    const reset = stream.events.find((x) => x.event === 'reset');
    expect(JSON.parse(reset?.data as string)).toEqual({ version: t.app.catalogue.snapshot.version });
    await stream.close();
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
