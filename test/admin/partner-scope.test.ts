import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor, NEW_CENTRE } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * What a partner key learns of other centres: nothing. An id of another centre's session, centre
 * or reservation and an id of nothing get the same 403; operator-only routes refuse it before its
 * body or id are validated. Operator keys still get 404 for ids of nothing.
 */

const NOBODY = '00000000-0000-4000-8000-00000000dead';
let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
let parisReservation: string;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
  const session = SESSIONS.parisMar12.id;
  const booked = await submit(t.app, session, await openForm(t.app, `/stages/${session}`), PERSON);
  expect(booked.statusCode).toBe(303);
  const list = await t.app.inject({ url: '/api/admin/reservations', headers: keys.admin });
  parisReservation = (list.json() as { data: { id: string }[] }).data[0]?.id as string;
});
afterAll(async () => t.close());

/** Each request by id, for an id. */
const byId = (id: string) =>
  [
    ['GET', `/api/admin/sessions/${id}`],
    ['PATCH', `/api/admin/sessions/${id}`, { priceEuros: 100 }],
    ['POST', `/api/admin/sessions/${id}/places`, { change: -1 }],
    ['GET', `/api/admin/centres/${id}`],
    ['GET', `/api/admin/reservations/${id}`],
    ['PATCH', `/api/admin/reservations/${id}`, { status: 'cancelled' }],
  ] as const;

async function status(method: string, url: string, headers: Record<string, string>, payload?: object) {
  const res = await t.app.inject({ method: method as 'GET', url, headers, ...(payload ? { payload } : {}) });
  return `${method} ${url} → ${res.statusCode}`;
}

describe('a partner key and ids outside its centre', () => {
  it('gets the same 403 for an id of another centre and for an id of nothing', async () => {
    const others = [SESSIONS.parisMar12.id, CENTRES.paris.id, parisReservation];
    for (const [method, url, payload] of [...byId(NOBODY), ...others.flatMap((id) => byId(id))]) {
      const answer = await status(method, url, keys.partner, payload);
      // Each route names its own kind; any id that is not the partner's own is refused alike.
      expect(answer).toBe(`${method} ${url} → 403`);
    }
  });

  it('leaves operator keys their 404 for ids of nothing', async () => {
    for (const [method, url, payload] of byId(NOBODY))
      expect(await status(method, url, keys.admin, payload)).toBe(`${method} ${url} → 404`);
  });

  it('is refused on operator-only routes before its body or id are validated', async () => {
    for (const [url, payload] of [
      [`/api/admin/centres/${NOBODY}`, { ...NEW_CENTRE, deptCode: '99', lat: 'north' }],
      ['/api/admin/centres/not-a-uuid', {}],
      [`/api/admin/centres/${CENTRES.lyon.id}`, NEW_CENTRE],
    ] as const) {
      const res = await t.app.inject({ method: 'PUT', url, headers: keys.partner, payload });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
    }
    // A body that is not even JSON: refused before it is parsed.
    const unparsed = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NOBODY}`,
      headers: { ...keys.partner, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(unparsed.statusCode).toBe(403);
  });
});
