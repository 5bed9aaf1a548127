import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importBatch } from '../../src/admin/import/write.js';
import { CLI_ACTOR } from '../../src/history/actor.js';
import { pruneChangeHistory } from '../../src/history/prune.js';
import { keysFor, NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* The centres' history: one entry per changed field, with who wrote it, written with the change. */

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

interface Entry {
  id: string;
  at: string;
  centreId: string;
  entity: string;
  entityId: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
  actor: { kind: string; id: string | null; label: string | null };
}

const json = (res: { body: string }) => JSON.parse(res.body);
async function history(query: string, headers = keys.admin): Promise<Entry[]> {
  const res = await t.app.inject({ url: `/api/admin/history?${query}`, headers });
  expect(res.statusCode, res.body).toBe(200);
  return json(res).data;
}
const ofRecord = (id: string) => history(`entityId=${id}&limit=500`);

describe('every admin write kind leaves one entry per changed field, with its actor', () => {
  const id = '50000000-0000-4000-8000-000000000001';
  const body = newSession(CENTRES.lyon.id, { courseNumber: 'HIST-1' });

  it('PUT creates (each field set), an identical PUT writes nothing, PATCH records old → new', async () => {
    expect(
      (await t.app.inject({ method: 'PUT', url: `/api/admin/sessions/${id}`, headers: keys.partner, payload: body }))
        .statusCode,
    ).toBe(201);
    const created = await ofRecord(id);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      entity: 'session',
      centreId: CENTRES.lyon.id,
      field: 'created',
      oldValue: null,
    });
    expect(created[0]?.actor).toEqual({ kind: 'api_key', id: keys.partnerId, label: 'centre lyon' });
    expect(JSON.parse(created[0]?.newValue as string)).toMatchObject({
      courseNumber: 'HIST-1',
      priceEuros: 229.5,
      day2: '2030-03-20',
    });

    await t.app.inject({ method: 'PUT', url: `/api/admin/sessions/${id}`, headers: keys.partner, payload: body });
    expect(await ofRecord(id)).toHaveLength(created.length);

    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: keys.admin,
      payload: { priceEuros: 199, startTime: '08:30' },
    });
    expect(patched.statusCode).toBe(200);
    const [latest, ...rest] = await ofRecord(id);
    expect(rest).toHaveLength(created.length);
    expect(latest).toMatchObject({ field: 'priceEuros', oldValue: '229.5', newValue: '199' });
    expect(latest?.actor).toEqual({ kind: 'api_key', id: keys.adminId, label: 'ops' });
  });

  it('a relative places change records spotsAvailable; a replayed one records nothing more', async () => {
    const before = (await ofRecord(id)).length;
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${id}/places`,
        headers: { ...keys.partner, 'idempotency-key': 'hist-order-1' },
        payload: { change: -2 },
      });
    expect((await post()).statusCode).toBe(200);
    expect((await post()).headers['idempotent-replayed']).toBe('true');
    const entries = await ofRecord(id);
    expect(entries).toHaveLength(before + 1);
    expect(entries[0]).toMatchObject({ field: 'spotsAvailable', oldValue: '12', newValue: '10' });
  });

  it('a centre PUT records its fields; the same PUT again nothing', async () => {
    const centreId = '20000000-0000-4000-8000-0000000000aa';
    const put = () =>
      t.app.inject({ method: 'PUT', url: `/api/admin/centres/${centreId}`, headers: keys.admin, payload: NEW_CENTRE });
    expect((await put()).statusCode).toBe(201);
    const first = await history(`centreId=${centreId}&entity=centre`);
    expect(first.map((e) => e.field)).toEqual(['created']);
    expect(first[0]?.newValue).toContain('R2406900123');
    expect((await put()).statusCode).toBe(200);
    expect(await history(`centreId=${centreId}&entity=centre`)).toHaveLength(first.length);
    const renamed = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${centreId}`,
      headers: keys.admin,
      payload: { ...NEW_CENTRE, name: 'Route Sereine' },
    });
    expect(renamed.statusCode).toBe(200);
    expect((await history(`centreId=${centreId}`))[0]).toMatchObject({
      entity: 'centre',
      field: 'name',
      oldValue: 'Route Sereine Villeurbanne',
      newValue: 'Route Sereine',
    });
  });

  it('an import records the fields of the records it writes, none for unchanged ones; the command line is its actor', async () => {
    const sid = '50000000-0000-4000-8000-000000000002';
    const payload = { sessions: [{ id: sid, ...newSession(CENTRES.lyon.id, { courseNumber: 'HIST-2' }) }] };
    const imp = () => t.app.inject({ method: 'POST', url: '/api/admin/import', headers: keys.partner, payload });
    expect(json(await imp()).sessions.created).toBe(1);
    const first = await ofRecord(sid);
    expect(first.map((e) => e.field)).toEqual(['created']);
    expect(new Set(first.map((e) => e.actor.id))).toEqual(new Set([keys.partnerId]));
    expect(json(await imp()).sessions.unchanged).toBe(1);
    expect(await ofRecord(sid)).toHaveLength(first.length);

    // What the CLI's import command passes: the command line as actor.
    const changed = { ...payload.sessions[0], spotsAvailable: 4 };
    await importBatch(
      t.app.database.db,
      [{ index: 0, type: 'session', data: changed }],
      { centreId: null },
      {
        dryRun: false,
        clock: t.app.clock,
        actor: CLI_ACTOR,
      },
    );
    const [latest] = await ofRecord(sid);
    expect(latest).toMatchObject({ field: 'spotsAvailable', oldValue: '12', newValue: '4' });
    expect(latest?.actor).toEqual({ kind: 'cli', id: null, label: 'command line' });
  });

  it('a reservation confirmed then cancelled records its status, never the person', async () => {
    const sessionId = SESSIONS.lyonMar5.id;
    const booked = await submit(t.app, sessionId, await openForm(t.app, `/stages/${sessionId}`));
    expect(booked.statusCode).toBe(303);
    const list = json(
      await t.app.inject({ url: `/api/admin/reservations?sessionId=${sessionId}`, headers: keys.partner }),
    );
    const reservationId = list.data[0].id as string;
    for (const status of ['confirmed', 'confirmed', 'cancelled'])
      expect(
        (
          await t.app.inject({
            method: 'PATCH',
            url: `/api/admin/reservations/${reservationId}`,
            headers: keys.partner,
            payload: { status },
          })
        ).statusCode,
      ).toBe(200);
    const entries = await ofRecord(reservationId);
    expect(entries.map((e) => [e.field, e.oldValue, e.newValue])).toEqual([
      ['status', 'confirmed', 'cancelled'],
      ['status', 'pending', 'confirmed'],
    ]);
    const all = await t.app.inject({ url: '/api/admin/history?limit=500', headers: keys.admin });
    for (const secret of [PERSON.email, PERSON.lastName, PERSON.firstName, '06 12 34 56 78', '+33612345678'])
      expect(all.body).not.toContain(secret);
  });
});

describe('who may read it', () => {
  it("keeps a partner to its own centre's history, and pages newest first", async () => {
    const forbidden = await t.app.inject({
      url: `/api/admin/history?centreId=${CENTRES.paris.id}`,
      headers: keys.partner,
    });
    expect(forbidden.statusCode).toBe(403);
    const parisSession = SESSIONS.parisMar12.id;
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${parisSession}`,
      headers: keys.admin,
      payload: { priceEuros: 250 },
    });
    expect((await history(`entityId=${parisSession}`)).length).toBe(1);
    expect(await history(`entityId=${parisSession}`, keys.partner)).toEqual([]);
    const mine = await history('limit=500', keys.partner);
    expect(new Set(mine.map((e) => e.centreId))).toEqual(new Set([CENTRES.lyon.id]));

    // Pages of 3 walk the same entries as one page, newest first, with no repeat.
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 100; i++) {
      const res = json(
        await t.app.inject({
          url: `/api/admin/history?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
          headers: keys.partner,
        }),
      );
      seen.push(...res.data.map((e: Entry) => e.id));
      if (!res.nextCursor) break;
      cursor = encodeURIComponent(res.nextCursor);
    }
    expect(seen).toEqual(mine.map((e) => e.id));
    const times = mine.map((e) => e.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('refuses a bad cursor or entity with a 400 naming it', async () => {
    for (const [query, name] of [
      ['cursor=nope', 'cursor'],
      ['entity=user', 'entity'],
      ['entityId=12', 'entityId'],
    ]) {
      const res = await t.app.inject({ url: `/api/admin/history?${query}`, headers: keys.admin });
      expect(res.statusCode).toBe(400);
      expect(json(res).errors[0].name).toBe(name);
    }
  });
});

describe('pruning', () => {
  it('keeps a year of history, then deletes it', async () => {
    const [newest] = await history('limit=1');
    const at = new Date(newest?.at as string).getTime();
    const day = 86_400_000;
    const count = async () => (await history('limit=500')).length;
    const before = await count();
    expect(await pruneChangeHistory(t.app.database.db, new Date(at + 364 * day))).toBe(0);
    expect(await count()).toBe(before);
    expect(await pruneChangeHistory(t.app.database.db, new Date(at + 366 * day))).toBeGreaterThan(0);
    expect(await count()).toBe(0);
  });
});
