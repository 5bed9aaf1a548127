import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalEndsAt, approvalExpiresOn } from '../../src/catalogue/approval.js';
import { bookPlace } from '../../src/reservations/repository.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { PERSON } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { openStream } from '../helpers/sse.js';

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
let base: string;
const lyon = CENTRES.lyon;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  keys = await keysFor(t.app, lyon.id);
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/** Writes the centre again as stored, with this approval day. */
async function approve(approvedOn: string | null) {
  const stored = (await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: keys.admin })).json();
  const { id, updatedAt, approvalExpiresOn, suspended, suspendedAt, suspensionReason, ...fields } = stored;
  const res = await t.app.inject({
    method: 'PUT',
    url: `/api/admin/centres/${lyon.id}`,
    headers: keys.admin,
    payload: { ...fields, approvedOn },
  });
  expect(res.statusCode).toBe(200);
  return res.json();
}

const lyonListed = async () =>
  ((await t.app.inject('/api/stages?dept=69&limit=100')).json().data as { centre: { id: string } }[]).some(
    (s) => s.centre.id === lyon.id,
  );
async function getCentre() {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_centre', arguments: { idOrSlug: lyon.slug } },
    },
  });
  return res.json().result as { isError?: boolean };
}

describe('the approval’s 5 years', () => {
  it('ends on the same day 5 years on, at midnight in the centre’s zone', () => {
    expect(approvalExpiresOn('2025-03-05')).toBe('2030-03-05');
    expect(approvalExpiresOn('2024-02-29')).toBe('2029-03-01');
    expect(new Date(approvalEndsAt('2025-03-05', 'Europe/Paris')).toISOString()).toBe('2030-03-04T23:00:00.000Z');
    expect(new Date(approvalEndsAt('2025-03-05', 'Indian/Reunion')).toISOString()).toBe('2030-03-04T20:00:00.000Z');
    expect(approvalEndsAt(null, 'Europe/Paris')).toBe(Number.POSITIVE_INFINITY);
  });

  it('takes the centre off every public answer when it ends on the service clock, and a new date brings it back', async () => {
    const written = await approve('2025-03-05');
    expect(written).toMatchObject({ approvedOn: '2025-03-05', approvalExpiresOn: '2030-03-05' });

    // Still approved the evening before: answered twice, so that the answer caches hold it.
    clock.set('2030-03-04T22:59:59Z');
    for (let i = 0; i < 2; i++) {
      expect(await lyonListed()).toBe(true);
      expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(200);
      expect((await getCentre()).isError).toBeFalsy();
    }
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonApr2Full.id}`)).statusCode).toBe(200);

    const stream = await openStream(`${base}/api/stages/events`);
    await stream.until((e) => e.some((x) => x.retry === '2000'));

    // Midnight in Paris: the approval has ended.
    clock.set('2030-03-04T23:00:00Z');
    expect(await lyonListed()).toBe(false);
    // The change stream says its sessions were removed.
    await stream.until(() => stream.sessions().some((s) => s.id === SESSIONS.lyonApr2Full.id));
    expect(stream.sessions().find((s) => s.id === SESSIONS.lyonApr2Full.id)).toMatchObject({ status: 'removed' });
    expect(stream.sessions().some((s) => s.id === SESSIONS.stEtienneMar5.id)).toBe(false);
    await stream.close();
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonApr2Full.id}`)).statusCode).toBe(404);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(404);
    expect((await t.app.inject(`/stages/${SESSIONS.lyonApr2Full.id}`)).statusCode).toBe(404);
    expect((await t.app.inject('/sitemap.xml')).body).not.toContain(lyon.slug);
    expect((await getCentre()).isError).toBe(true);
    // Other centres are untouched.
    expect((await t.app.inject(`/api/stages/${SESSIONS.stEtienneMar5.id}`)).statusCode).toBe(200);
    // The database refuses a booking too.
    const outcome = await bookPlace(t.app.database.db, {
      sessionId: SESSIONS.lyonApr2Full.id,
      details: { ...PERSON, reason: 'voluntary' } as never,
      browser: 'c'.repeat(22),
      now: clock.now(),
    });
    expect(outcome.kind).toBe('closed');
    // The operator still reads it, and sees why.
    const stored = (await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: keys.admin })).json();
    expect(stored).toMatchObject({ approvedOn: '2025-03-05', approvalExpiresOn: '2030-03-05', suspended: false });

    // The renewed approval brings it back.
    await approve('2030-03-01');
    expect(await lyonListed()).toBe(true);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(200);
    expect((await getCentre()).isError).toBeFalsy();
    // And removing the date (not judged on one) keeps it.
    await approve(null);
    expect(await lyonListed()).toBe(true);
  });

  it('refuses an approval date that is not a real day', async () => {
    const stored = (await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: keys.admin })).json();
    const { id, updatedAt, approvalExpiresOn, suspended, suspendedAt, suspensionReason, ...fields } = stored;
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${lyon.id}`,
      headers: keys.admin,
      payload: { ...fields, approvedOn: '2025-02-30' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ name: 'approvedOn' });
  });
});
