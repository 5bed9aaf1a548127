import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportCatalogue } from '../../src/admin/import/export.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { afterAnswer, openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The places model (docs/admin-api.md, "Places"): a centre's absolute figure is set against the
 * bookings made here, so that a figure sent late never puts a booked place back on sale, and one
 * that already counts them does not subtract them twice.
 */

const session = SESSIONS.lyonMar5Early;
let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

const patch = (payload: object) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/sessions/${session.id}`, headers: keys.partner, payload });
const read = async () =>
  (await t.app.inject({ url: `/api/admin/sessions/${session.id}`, headers: keys.partner })).json() as Record<
    string,
    unknown
  >;
/** The centre's own file: this one session, stating the places its system has left. */
const centreFile = (spotsAvailable: number, extra: object = {}) => {
  const { id, updatedAt: _, heldHere: __, ...stored } = FIXTURE_SESSION_RECORD;
  return { sessions: [{ id, ...stored, spotsAvailable, ...extra }] };
};
let FIXTURE_SESSION_RECORD: Record<string, unknown>;
/** An import by the centre's key, or (a whole export) by the operator's. */
const importFile = async (body: object | string, type?: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/import',
    headers: { ...(type ? keys.admin : keys.partner), ...(type ? { 'content-type': type } : {}) },
    payload: body as string,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { sessions: Record<string, number> };
};
let booked = 0;
async function book(): Promise<{ path: string; cookie: string }> {
  const form = await openForm(t.app, `/stages/${session.id}`);
  booked++;
  const res = await submit(t.app, session.id, form, { ...PERSON, email: `personne${booked}@example.org` });
  expect(res.statusCode).toBe(303);
  return { path: privatePath(res.headers.location), cookie: afterAnswer(form, res).cookie };
}
async function stored(): Promise<{ spots: number; held: number; active: number }> {
  const result = await t.app.database.db.execute(
    sql`select spots_available::int as spots, held_here::int as held,
          (select count(*)::int from reservations where session_id = ${session.id} and status <> 'cancelled') as active
        from stage_sessions where id = ${session.id}`,
  );
  const rows = ((result as unknown as { rows?: unknown[] }).rows ?? result) as {
    spots: number;
    held: number;
    active: number;
  }[];
  return rows[0] as { spots: number; held: number; active: number };
}

describe('a centre writes its own figure; the bookings made here keep their places', () => {
  it('a figure sent late, by PATCH or by import, never puts a booked place back on sale', async () => {
    expect((await patch({ spotsAvailable: 5 })).json()).toMatchObject({ spotsAvailable: 5, heldHere: 0 });
    FIXTURE_SESSION_RECORD = await read();
    await book();
    await book();
    expect(await placesLeft(t.app, session.id)).toBe(3);
    expect(await read()).toMatchObject({ spotsAvailable: 3, heldHere: 2 });

    // The centre's system, which never heard of the two bookings, still says 5.
    expect((await patch({ spotsAvailable: 5 })).json()).toMatchObject({ spotsAvailable: 3, heldHere: 2 });
    expect((await importFile(centreFile(5))).sessions).toMatchObject({ unchanged: 1 });
    expect(await placesLeft(t.app, session.id)).toBe(3);
    // Its own sale of one more place is its own to state.
    expect((await patch({ spotsAvailable: 4 })).json()).toMatchObject({ spotsAvailable: 2 });
    expect(await stored()).toEqual({ spots: 2, held: 2, active: 2 });
  });

  it('a figure that already counts bookings made here does not subtract them twice', async () => {
    // It entered both bookings from our notices: 4 left in its system, counting them.
    expect((await patch({ spotsAvailable: 4, heldHere: 2 })).json()).toMatchObject({ spotsAvailable: 4 });
    expect((await importFile(centreFile(4, { heldHere: 2 }))).sessions).toMatchObject({ unchanged: 1 });
    // Read, change the price, write back: the places stay as they were.
    const { id: _, updatedAt: __, ...record } = await read();
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${session.id}`,
      headers: keys.partner,
      payload: { ...record, priceEuros: 245 },
    });
    expect(put.json()).toMatchObject({ spotsAvailable: 4, heldHere: 2, priceEuros: 245 });
  });

  it('an export imported back changes nothing, and one read before a cancellation keeps the freed place on sale', async () => {
    // What `npm run cli -- export` writes.
    const exported = await exportCatalogue(t.app.database.db, 'csv');
    expect(exported.split('\n')[0]).toContain('heldHere');
    const roundTrip = await importFile(exported, 'text/csv');
    expect(roundTrip.sessions).toMatchObject({ created: 0, updated: 0 });
    expect(await placesLeft(t.app, session.id)).toBe(4);

    const first = await book();
    expect(await stored()).toEqual({ spots: 3, held: 3, active: 3 });
    const readBefore = await exportCatalogue(t.app.database.db, 'csv');
    const cancelForm = await openForm(t.app, first.path, first.cookie);
    const cancel = await t.app.inject({
      method: 'POST',
      url: `${first.path}/annulation`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: first.cookie,
        origin: 'https://stages.example.test',
      },
      payload: `formToken=${cancelForm.formToken}`,
    });
    expect(cancel.statusCode).toBe(303);
    expect(await stored()).toEqual({ spots: 4, held: 2, active: 2 });
    // The file read when 3 were held and 3 on sale, written back after the cancellation: the freed place stays on sale.
    await importFile(readBefore, 'text/csv');
    expect(await stored()).toEqual({ spots: 4, held: 2, active: 2 });
  });

  it('the database itself refuses more places on sale than the group less the bookings held', async () => {
    const write = t.app.database.db.execute(
      sql`update stage_sessions set spots_available = capacity where id = ${session.id}`,
    );
    await expect(write).rejects.toMatchObject({
      cause: expect.objectContaining({ constraint: 'stage_sessions_places_held' }),
    });
    expect(await stored()).toEqual({ spots: 4, held: 2, active: 2 });
  });
});
