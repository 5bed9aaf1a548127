import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

const get = (url: string, etag?: string) => t.app.inject({ url, headers: etag ? { 'if-none-match': etag } : {} });
const patch = (id: string, payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/sessions/${id}`, headers: keys.admin, payload });

describe('GET /api/stages: ETag and 304', () => {
  it('answers 304 with no body while the answer is unchanged, and 200 once it changes', async () => {
    const first = await get('/api/stages?dept=69');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[\w-]{22}"$/);
    const again = await get('/api/stages?dept=69', etag);
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    // Strong form, a list, and * match too (weak comparison).
    expect((await get('/api/stages?dept=69', etag.slice(2))).statusCode).toBe(304);
    expect((await get('/api/stages?dept=69', `"other", ${etag}`)).statusCode).toBe(304);
    expect((await get('/api/stages?dept=69', '*')).statusCode).toBe(304);
    expect((await get('/api/stages?dept=75', etag)).statusCode).toBe(200);

    // A change in another department leaves this answer (and its ETag) as it was...
    expect((await patch(SESSIONS.parisMar12.id, { priceEuros: 281 })).statusCode).toBe(200);
    const elsewhere = await get('/api/stages?dept=69', etag);
    expect(elsewhere.statusCode).toBe(304);
    // ...though a full answer carries the catalogue's new updatedAt.
    const body = (await get('/api/stages?dept=69')).json();
    expect(body.updatedAt > first.json().updatedAt).toBe(true);

    // A change in this department makes a new answer.
    expect((await patch(SESSIONS.lyonMar5.id, { spotsAvailable: 2 })).statusCode).toBe(200);
    const changed = await get('/api/stages?dept=69', etag);
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect(changed.json().data.find((s: { id: string }) => s.id === SESSIONS.lyonMar5.id).spotsAvailable).toBe(2);
  });

  it('drops a town answer when a centre changes, since the town may now match it', async () => {
    const before = await get('/api/stages?city=grenoble');
    expect(before.json().count).toBe(0);
    const moved = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${CENTRES.bourg.id}`,
      headers: keys.admin,
      payload: {
        slug: CENTRES.bourg.slug,
        name: 'Centre Grenoble',
        address: '5 rue E',
        city: 'Grenoble',
        postalCode: '38000',
        deptCode: '38',
        lat: 45.19,
        lng: 5.72,
        agrementNumber: 'R2603800005',
      },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const after = await get('/api/stages?city=grenoble', before.headers.etag as string);
    expect(after.statusCode).toBe(200);
    expect(after.json().data.map((s: { id: string }) => s.id)).toEqual([SESSIONS.bourgMar14.id]);
    expect((await get('/api/stages?dept=01')).json().count).toBe(0);
  });
});
