import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { secondInstance } from '../helpers/second-instance.js';
import { openStream } from '../helpers/sse.js';

let t: TestApp;
let base: string;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const places = (id: string, change: number) =>
  t.app.inject({ method: 'POST', url: `/api/admin/sessions/${id}/places`, headers: keys.admin, payload: { change } });

const lyon = SESSIONS.lyonMar5; // 69
const paris = SESSIONS.parisMar12; // 75
const bourg = SESSIONS.bourgMar14; // 01
const ajaccio = SESSIONS.ajaccioMar13; // 2A

describe('GET /api/stages/events, filtered', () => {
  it('sends the changes of the sessions named, and nothing of the others, each version closed by its id', async () => {
    const everything = await openStream(`${base}/api/stages/events`);
    const one = await openStream(`${base}/api/stages/events?sessionId=${lyon.id}`);
    await Promise.all([everything, one].map((s) => s.until((e) => e.some((x) => x.event === 'ready'))));
    // The ready event still carries the version the stream starts from.
    expect(one.events.find((e) => e.event === 'ready')?.id).toBe(String(t.app.catalogue.snapshot.version));

    await places(paris.id, -1);
    await places(lyon.id, -1);
    await places(bourg.id, -1);
    await everything.until(() => everything.sessions().length >= 3);
    await one.until(() => one.sessions().length >= 1);
    // The unfiltered stream saw three; the filtered one only Lyon's, with its version's id.
    expect(everything.sessions().map((s) => s.id)).toEqual([paris.id, lyon.id, bourg.id]);
    const lyonVersion = everything.sessions()[1].version;
    await places(lyon.id, 1);
    await one.until(() => one.sessions().length >= 2);
    expect(one.sessions()).toEqual([
      expect.objectContaining({ id: lyon.id, spotsAvailable: 2, lastId: String(lyonVersion) }),
      expect.objectContaining({ id: lyon.id, spotsAvailable: 3 }),
    ]);
    await Promise.all([everything.close(), one.close()]);
  });

  it('sends the changes of a department, and of several parameters together (either matching)', async () => {
    const corsica = await openStream(`${base}/api/stages/events?dept=2a`);
    const both = await openStream(`${base}/api/stages/events?dept=01&dept=2A&sessionId=${paris.id}`);
    await Promise.all([corsica, both].map((s) => s.until((e) => e.some((x) => x.event === 'ready'))));

    await places(lyon.id, -1); // 69: nobody here
    await places(ajaccio.id, -1); // 2A: both
    await places(paris.id, 1); // named: both (the first test took its last place)
    await places(bourg.id, 1); // 01: both
    await both.until(() => both.sessions().length >= 3);
    await places(ajaccio.id, 1);
    await corsica.until(() => corsica.sessions().length >= 2);
    expect(corsica.sessions().map((s) => s.id)).toEqual([ajaccio.id, ajaccio.id]);
    expect(
      both
        .sessions()
        .map((s) => s.id)
        .slice(0, 3),
    ).toEqual([ajaccio.id, paris.id, bourg.id]);
    for (const s of [...corsica.sessions(), ...both.sessions()]) expect(s.lastId).toBe(String(s.version));
    await Promise.all([corsica.close(), both.close()]);
  });

  it('keeps its filter when resumed with Last-Event-ID: only the missed changes it asked for', async () => {
    const stream = await openStream(`${base}/api/stages/events?dept=69`);
    await stream.until((e) => e.some((x) => x.event === 'ready'));
    const from = stream.lastEventId() as string;
    await stream.close();

    await places(paris.id, -1);
    await places(lyon.id, 1);
    await places(ajaccio.id, -1);
    const resumed = await openStream(`${base}/api/stages/events?dept=69`, { headers: { 'last-event-id': from } });
    await resumed.until(() => resumed.sessions().length >= 1);
    await places(bourg.id, -1); // not 69: not sent
    await places(lyon.id, -1);
    await resumed.until(() => resumed.sessions().length >= 2);
    expect(resumed.sessions().map((s) => [s.id, s.spotsAvailable])).toEqual([
      [lyon.id, 3],
      [lyon.id, 2],
    ]);
    // The replay's id is the version it covers, that of the last change missed (Corsica's).
    expect(resumed.sessions()[0].lastId).toBe(String(resumed.sessions()[1].version - 2));
    await resumed.close();

    // A resume with nothing of its own to replay keeps the client's id and sends only what comes.
    const reunion = SESSIONS.reunionMar19;
    const quiet = await openStream(`${base}/api/stages/events?sessionId=${reunion.id}&lastEventId=${from}`);
    await quiet.until((e) => e.some((x) => x.retry));
    await places(ajaccio.id, 1);
    await places(reunion.id, -1);
    await quiet.until(() => quiet.sessions().length >= 1);
    expect(quiet.sessions()).toEqual([
      expect.objectContaining({ id: reunion.id, spotsAvailable: 5, lastId: String(t.app.catalogue.snapshot.version) }),
    ]);
    await quiet.close();
  });

  it('refuses bad parameters with problem details naming each, before any stream opens', async () => {
    const cases: [string, string][] = [
      ['sessionId=not-a-uuid', 'sessionId'],
      ['dept=20', 'dept'],
      ['dept=999', 'dept'],
      [
        `${Array.from({ length: 21 }, (_, i) => `sessionId=${lyon.id.slice(0, -2)}${String(i).padStart(2, '0')}`).join('&')}`,
        'sessionId',
      ],
      [`${['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11'].map((d) => `dept=${d}`).join('&')}`, 'dept'],
    ];
    for (const [query, name] of cases) {
      const res = await fetch(`${base}/api/stages/events?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      const body = await res.json();
      expect(body.errors.map((e: { name: string }) => e.name)).toEqual([name]);
    }
    const many = await fetch(
      `${base}/api/stages/events?dept=1&${Array.from({ length: 11 }, () => 'dept=2').join('&')}`,
    );
    expect((await many.json()).errors[0].reason).toBe('at most 10 dept values per stream');
  });
});

if (TEST_DB === 'postgres')
  describe('GET /api/stages/events, filtered, across instances', () => {
    it("sends a change made on another instance to a filtered stream, and nothing of another department's", async () => {
      const other = await secondInstance(t);
      try {
        const stream = await openStream(`${other.base}/api/stages/events?dept=75`);
        await stream.until((e) => e.some((x) => x.event === 'ready'));
        await places(lyon.id, -1);
        await places(paris.id, 1);
        await stream.until(() => stream.sessions().length >= 1);
        expect(stream.sessions()).toEqual([expect.objectContaining({ id: paris.id, status: expect.any(String) })]);
        expect(stream.sessions()[0].lastId).toBe(String(t.app.catalogue.snapshot.version));
        await stream.close();
      } finally {
        await other.close();
      }
    });
  });
