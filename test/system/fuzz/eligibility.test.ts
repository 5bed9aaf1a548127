import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from '../../helpers/app.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from '../../helpers/fixtures.js';
import { expectCleanAnswer, fuzz, hostileJson, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterAll(async () => {
  await t.close();
});

const VALID = {
  lastCourseEndedOn: '2029-05-01',
  letter48nReceivedOn: '2030-01-10',
  probationStartedOn: '2028-06-17',
  accompaniedDriving: false,
  courtOrdered: false,
  pointsLeft: 3,
  letter48si: false,
  near: '45,4',
};

/** Plausible values of each field, and anything at all. */
const fieldValue = fc.oneof(
  hostileJson,
  fc.constantFrom(
    '2030-03-04',
    '2030-03-05',
    '2029-02-29',
    '2028-02-29',
    '',
    '0000-01-01',
    0,
    12,
    13,
    -1,
    true,
    'Lyon',
  ),
);
const body = fc.oneof(
  hostileJson,
  fc
    .array(fc.tuple(fc.constantFrom(...Object.keys(VALID), 'extra'), fieldValue), { maxLength: 5 })
    .map((pairs) => Object.fromEntries(pairs)),
  fc.tuple(fc.constantFrom(...Object.keys(VALID)), fieldValue).map(([k, v]) => ({ ...VALID, [k]: v })),
);

describe('fuzz: the eligibility check', () => {
  it('answers any JSON body with an answer or a problem naming a field, never a 500', async () => {
    await fuzz(body, async (payload) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/eligibility',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(payload) ?? 'null',
      });
      expectCleanAnswer(res, 'problem');
      if (res.statusCode === 200) expect(['yes', 'no', 'uncertain']).toContain(res.json().givesPoints);
      else expect(res.statusCode).toBe(400);
    });
  });

  it('answers any form on the page with a French page, never a 500', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/peut-on-faire-un-stage' });
    const cookie = String(page.headers['set-cookie']).split(';')[0] as string;
    const token = /name="formToken" value="([^"]+)"/.exec(page.body)?.[1] as string;
    await fuzz(
      fc.array(fc.tuple(fc.constantFrom(...Object.keys(VALID), 'formToken'), hostileText), { maxLength: 6 }),
      async (pairs) => {
        const form = new URLSearchParams({ formToken: token });
        for (const [k, v] of pairs) form.append(k, v);
        const res = await t.app.inject({
          method: 'POST',
          url: '/peut-on-faire-un-stage',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          payload: form.toString(),
        });
        expectCleanAnswer(res, 'page');
      },
    );
  });
});
