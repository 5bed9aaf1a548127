import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from '../../helpers/app.js';
import { type OpenForm, openForm, PERSON } from '../../helpers/booking.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../../helpers/fixtures.js';
import { expectCleanAnswer, fuzz, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
let form: OpenForm;
const ID = SESSIONS.bourgMar14.id; // 20 places
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  form = await openForm(t.app, `/stages/${ID}`);
});
afterAll(async () => {
  expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  await t.close();
});

/** Places left plus places held by reservations: what a booking moves from one to the other. */
async function placesAccounted(): Promise<number> {
  const rows = await t.app.database.db.execute(
    sql`select (select spots_available from stage_sessions where id = ${ID})
             + (select count(*)::int from reservations where session_id = ${ID} and status <> 'cancelled') as n`,
  );
  const [row] = ((rows as unknown as { rows?: unknown[] }).rows ?? rows) as { n: number }[];
  return Number(row?.n);
}

describe('fuzz: the reservation form', () => {
  it('answers any submission with a page (a booking or a readable refusal), never a 500; places always add up', async () => {
    const fields = Object.keys(PERSON);
    const body = fc.oneof(
      // The valid form with some fields replaced by anything, or extra fields.
      fc
        .dictionary(fc.constantFrom(...fields, 'website', 'formToken', 'extra'), hostileText, { maxKeys: 4 })
        .map((changes) => new URLSearchParams({ ...PERSON, formToken: form.formToken, ...changes }).toString()),
      // Any text at all as the body.
      hostileText,
    );
    const contentType = fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
    );
    await fuzz(fc.tuple(body, contentType, fc.boolean()), async ([payload, type, withCookie]) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/stages/${ID}/reservation`,
        headers: { accept: 'text/html', 'content-type': type, ...(withCookie ? { cookie: form.cookie } : {}) },
        payload,
      });
      expectCleanAnswer(res, 'page');
      expect([303, 400, 403, 409, 413, 415, 429], `${res.statusCode}`).toContain(res.statusCode);
      expect(await placesAccounted()).toBe(20);
    });
  });

  it('answers any private link and any cancellation with a page, never a 500', async () => {
    await fuzz(fc.tuple(hostileText, fc.boolean()), async ([token, cancel]) => {
      const res = await t.app.inject({
        method: cancel ? 'POST' : 'GET',
        url: `/reservations/${encodeURIComponent(token)}${cancel ? '/annulation' : ''}`,
        // As a browser asks: paths that match no page get the site's 404 page too.
        headers: {
          accept: 'text/html',
          ...(cancel ? { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie } : {}),
        },
        ...(cancel ? { payload: `formToken=${form.formToken}` } : {}),
      });
      expectCleanAnswer(res, 'page');
      expect(await placesAccounted()).toBe(20);
    });
  });
});
