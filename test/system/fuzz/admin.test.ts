import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/admin/api-keys.js';
import { NEW_CENTRE, newSession } from '../../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../../helpers/fixtures.js';
import { expectCleanAnswer, fuzz, hostileJson, hostileText } from '../../helpers/fuzz.js';

let t: TestApp;
let key: string;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  key = (await createApiKey(t.app.database.db, { name: 'fuzz', role: 'admin', centreId: null })).key;
});
afterAll(async () => {
  expect((await t.app.inject('/api/health')).statusCode).toBe(200);
  await t.close();
});

const ID = SESSIONS.lyonMar5.id;
const CENTRE = '20000000-0000-4000-8000-0000000000f1';
/** A valid body with one field replaced by anything, or anything at all. */
const mutated = (valid: Record<string, unknown>) =>
  fc.oneof(
    hostileJson,
    fc.tuple(fc.constantFrom(...Object.keys(valid), 'extra'), hostileJson).map(([k, v]) => ({ ...valid, [k]: v })),
  );

describe('fuzz: the operator API', () => {
  it('answers any body on any write with a problem+json error or a valid write, never a 500 or the key', async () => {
    const routes: [string, string, fc.Arbitrary<unknown>][] = [
      [
        'PUT',
        `/api/admin/centres/${CENTRE}`,
        mutated({ ...NEW_CENTRE, slug: 'fuzz-centre', agrementNumber: 'R2406900444' }),
      ],
      ['PUT', `/api/admin/sessions/${ID}`, mutated(newSession(CENTRES.lyon.id, { courseNumber: 'FZ-1' }))],
      ['PATCH', `/api/admin/sessions/${ID}`, mutated({ priceEuros: 240, spotsAvailable: 3 })],
      ['POST', `/api/admin/sessions/${ID}/places`, mutated({ change: -1 })],
      ['POST', '/api/admin/import?dryRun=true', mutated({ centres: [], sessions: [] })],
    ];
    await fuzz(
      fc.tuple(fc.constantFrom(...routes), fc.nat(), fc.option(hostileText, { nil: undefined })),
      async ([[method, url, body], seed, idempotencyKey]) => {
        const payload = fc.sample(body, { seed, numRuns: 1 })[0];
        const res = await t.app.inject({
          method: method as 'PUT',
          url,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            ...(idempotencyKey !== undefined && /^[\t\x20-\x7e]*$/.test(idempotencyKey)
              ? { 'idempotency-key': idempotencyKey }
              : {}),
          },
          payload: JSON.stringify(payload) ?? 'null',
        });
        expectCleanAnswer(res, 'problem', [key]);
      },
    );
  });

  it('answers any Authorization header with 401 or 403, never a 500, and writes nothing', async () => {
    const spots = async () =>
      (await t.app.inject({ url: `/api/admin/sessions/${ID}`, headers: { authorization: `Bearer ${key}` } })).json()
        .spotsAvailable as number;
    const was = await spots();
    await fuzz(
      fc.oneof(
        hostileText,
        hostileText.map((s) => `Bearer ${s}`),
        hostileText.map((s) => `Bearer sk_${s}`),
      ),
      async (authorization) => {
        if (!/^[\t\x20-\x7e]*$/.test(authorization)) return; // not a header value HTTP can carry
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/admin/sessions/${ID}/places`,
          headers: { authorization, 'content-type': 'application/json' },
          payload: { change: -1 },
        });
        expectCleanAnswer(res, 'problem');
        expect([401, 403]).toContain(res.statusCode);
      },
    );
    expect(await spots()).toBe(was);
  });
});
