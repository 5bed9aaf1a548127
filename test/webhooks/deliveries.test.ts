import { and, eq, sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { centres, jobs, webhookSubscriptions } from '../../src/db/schema.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { type Received, startReceiver } from './receiver.js';

const lyon = SESSIONS.lyonMar5Early;
const HOUR = 3_600_000;

let t: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let clock: ReturnType<typeof frozenClock>;
let keys: Awaited<ReturnType<typeof keysFor>>;

beforeEach(async () => {
  clock = frozenClock(FIXTURE_NOW);
  receiver = await startReceiver();
  t = await buildTestApp({
    catalogue: FIXTURE_CATALOGUE,
    clock,
    // SMTP_URL: so that a disabling's email is queued (nothing here sends it).
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_URL: 'smtp://127.0.0.1:1' },
  });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterEach(async () => {
  await t.close();
  await receiver.close();
});

async function subscribe(events: string[], headers = keys.partner) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/webhooks',
    headers,
    payload: { url: receiver.url, events },
  });
  expect(res.statusCode).toBe(201);
  return res.json() as { id: string; secret: string };
}

async function book(email = PERSON.email) {
  const form = await openForm(t.app, `/stages/${lyon.id}`);
  const res = await submit(t.app, lyon.id, form, { ...PERSON, email });
  expect(res.statusCode).toBe(303);
}

/** Runs only the webhook deliveries due (the mail jobs' SMTP server is not there). */
const webhookJobs = () => t.app.database.db.select().from(jobs).where(eq(jobs.kind, 'webhook')).orderBy(jobs.id);
/** Time passes for the database too: every waiting retry is due now. */
const dueNow = () => t.app.database.db.update(jobs).set({ runAt: sql`now()` }).where(eq(jobs.kind, 'webhook'));
/**
 * Verifies a delivery with the standardwebhooks package, on the app's frozen clock: the package
 * refuses timestamps more than 5 minutes from its own now (the fixtures' clock is in 2030).
 */
function verify(secret: string, r: Received): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: clock.now() });
  try {
    return new Webhook(secret).verify(r.body, {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    });
  } finally {
    vi.useRealTimers();
  }
}
const advance = (ms: number) => clock.set(new Date(clock.now().getTime() + ms).toISOString());

describe('webhook deliveries', () => {
  it('delivers a booking made on the site once, signed as Standard Webhooks verify it, ids only over http', async () => {
    const sub = await subscribe(['reservation.created']);
    await book();
    expect(await t.app.jobs.drain()).toBeGreaterThanOrEqual(1);
    expect(await t.app.jobs.drain()).toBe(0);
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const verified = verify(sub.secret, delivery as Received) as {
      type: string;
      timestamp: string;
      data: { sessionId: string; centreId: string; reservation: Record<string, unknown> };
    };
    expect(verified.type).toBe('reservation.created');
    expect(verified.timestamp).toBe(new Date(FIXTURE_NOW).toISOString());
    expect(delivery?.headers['webhook-timestamp']).toBe(String(Date.parse(FIXTURE_NOW) / 1000));
    expect(verified.data.sessionId).toBe(lyon.id);
    expect(verified.data.centreId).toBe(CENTRES.lyon.id);
    expect(verified.data.reservation.reference).toMatch(/^SRP-/);
    // An http URL: no person's details, even for the centre's own subscription.
    expect(delivery?.body).not.toContain(PERSON.email);
    expect(delivery?.body).not.toContain('person');
    // A forged signature does not verify.
    expect(() => verify(sub.secret, { ...(delivery as Received), body: `${delivery?.body} ` })).toThrow(
      /No matching signature/,
    );
    expect(() => verify('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', delivery as Received)).toThrow();
    // The owner reads the delivery.
    const detail = await t.app.inject({ url: `/api/admin/webhooks/${sub.id}`, headers: keys.partner });
    expect(detail.json().deliveries).toEqual([
      expect.objectContaining({ type: 'reservation.created', statusCode: 200, attempt: 1, error: null }),
    ]);
  });

  it('sends a test event, and session changes through the admin API to an all-centre subscription', async () => {
    const mine = await subscribe(['session.changed']);
    const all = await subscribe(['session.changed'], keys.admin);
    const test = await t.app.inject({
      method: 'POST',
      url: `/api/admin/webhooks/${mine.id}/test`,
      headers: keys.partner,
    });
    expect(test.statusCode).toBe(202);
    const places = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${lyon.id}/places`,
      headers: keys.partner,
      payload: { change: -1 },
    });
    expect(places.statusCode).toBe(200);
    // Another centre's change reaches the all-centre subscription only.
    const other = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${SESSIONS.stEtienneMar5.id}/places`,
      headers: keys.admin,
      payload: { change: -1 },
    });
    expect(other.statusCode).toBe(200);
    await t.app.jobs.drain();
    const bySecret = (secret: string) =>
      receiver.received
        .filter((r) => {
          try {
            verify(secret, r);
            return true;
          } catch {
            return false;
          }
        })
        .map(
          (r) =>
            JSON.parse(r.body) as { type: string; data: { sessionId?: string; session?: { spotsAvailable: number } } },
        );
    expect(bySecret(mine.secret).map((e) => [e.type, e.data.sessionId])).toEqual([
      ['webhook.test', undefined],
      ['session.changed', lyon.id],
    ]);
    expect(bySecret(mine.secret)[1]?.data.session?.spotsAvailable).toBe(lyon.spotsAvailable - 1);
    expect(
      bySecret(all.secret)
        .map((e) => e.data.sessionId)
        .sort(),
    ).toEqual([lyon.id, SESSIONS.stEtienneMar5.id].sort());
  });

  it('holds every event while the receiver is down and delivers each once, in order, when it is back', async () => {
    const sub = await subscribe([
      'reservation.created',
      'reservation.cancelled',
      'reservation.confirmed',
      'session.changed',
    ]);
    receiver.state.status = 503;
    await book('first@example.org');
    const [first] = await t.app.database.db
      .execute<{ id: string }>(sql`select id from reservations order by created_at limit 1`)
      .then((r) => (r as unknown as { rows?: { id: string }[] }).rows ?? (r as unknown as { id: string }[]));
    const confirm = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/reservations/${first?.id}`,
      headers: keys.partner,
      payload: { status: 'confirmed' },
    });
    expect(confirm.statusCode).toBe(200);
    await t.app.jobs.drain();
    const cancel = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/reservations/${first?.id}`,
      headers: keys.partner,
      payload: { status: 'cancelled' },
    });
    expect(cancel.statusCode).toBe(200);
    // Several tries while down: only the oldest event of the session is tried; the rest wait behind it.
    for (let i = 0; i < 3; i++) {
      await dueNow();
      await t.app.jobs.drain();
    }
    const waiting = await webhookJobs();
    expect(waiting).toHaveLength(5);
    expect(waiting.map((j) => j.attempts)).toEqual([4, 0, 0, 0, 0]);
    expect(receiver.received).toHaveLength(0);

    receiver.state.status = 200;
    await dueNow();
    await t.app.jobs.drain();
    expect(receiver.events().map((e) => e.type)).toEqual([
      'reservation.created',
      'session.changed',
      'reservation.confirmed',
      'reservation.cancelled',
      'session.changed',
    ]);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(5);
    expect(await webhookJobs()).toHaveLength(0);
    // The last session.changed says the place came back.
    expect(receiver.events()[4]?.data.session).toMatchObject({ spotsAvailable: lyon.spotsAvailable });
    const [row] = await t.app.database.db
      .select()
      .from(webhookSubscriptions)
      .where(eq(webhookSubscriptions.id, sub.id));
    expect(row?.failingSince).toBeNull();
  });

  it('backs off exponentially, gives an event up after 24 hours so the next goes, and disables after 3 days', async () => {
    await t.app.database.db
      .update(centres)
      .set({ email: 'contact@centre-lyon.example' })
      .where(eq(centres.id, CENTRES.lyon.id));
    const sub = await subscribe(['session.changed']);
    receiver.state.status = 503;
    const placeChange = (change: number) =>
      t.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${lyon.id}/places`,
        headers: keys.partner,
        payload: { change },
      });
    expect((await placeChange(-1)).statusCode).toBe(200);
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      await t.app.jobs.drain();
      const [waitMs] = await t.app.database.db
        .select({ ms: sql<number>`extract(epoch from ${jobs.runAt} - now()) * 1000` })
        .from(jobs)
        .where(and(eq(jobs.kind, 'webhook'), sql`${jobs.attempts} > 0`));
      delays.push(Number(waitMs?.ms));
      advance(HOUR);
      await dueNow();
    }
    // 15 s, 30 s, 1 min, 2 min, each with jitter between half and all of it.
    delays.forEach((ms, i) => {
      const ceiling = 15_000 * 2 ** i;
      expect(ms).toBeGreaterThanOrEqual(ceiling / 2 - 2000);
      expect(ms).toBeLessThanOrEqual(ceiling + 1000);
    });
    // A second event, 4 hours after the first, waits behind it.
    expect((await placeChange(-1)).statusCode).toBe(200);
    // 24 hours after the first event: its delivery is given up; the second event is tried next.
    advance(20 * HOUR);
    await dueNow();
    await t.app.jobs.drain();
    const after = await webhookJobs();
    expect(after.map((j) => [j.state, j.attempts])).toEqual([
      ['failed', 5],
      ['pending', 1],
    ]);
    expect(after[0]?.lastError).toMatch(/^Expired:DeliveryError/);
    // Still failing 3 days after the first failure: disabled, and the centre is emailed.
    advance(48 * HOUR);
    await dueNow();
    await t.app.jobs.drain();
    const detail = await t.app.inject({ url: `/api/admin/webhooks/${sub.id}`, headers: keys.partner });
    expect(detail.json().disabledAt).toBe(clock.now().toISOString());
    expect(detail.json().failingSince).toBe(new Date(FIXTURE_NOW).toISOString());
    const mails = await t.app.database.db.select().from(jobs).where(eq(jobs.kind, 'mail'));
    expect(mails.map((m) => (m.payload as { to: string }).to)).toEqual(['contact@centre-lyon.example']);
    const text = (mails[0]?.payload as { text: string } | undefined)?.text;
    expect(text).toContain(receiver.url);
    // It says where the owner makes a new one: the webhooks page of the centre's area.
    expect(text).toContain(`/espace-centre/centres/${CENTRES.lyon.id}/webhooks`);
    // A disabled subscription receives nothing more, even when the receiver is back.
    receiver.state.status = 200;
    expect((await placeChange(1)).statusCode).toBe(200);
    await dueNow();
    await t.app.jobs.drain();
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a redirect rather than following it', async () => {
    const sub = await subscribe(['reservation.created']);
    receiver.state.status = 302;
    await book();
    await t.app.jobs.drain();
    const detail = await t.app.inject({ url: `/api/admin/webhooks/${sub.id}`, headers: keys.partner });
    expect(detail.json().deliveries[0]).toMatchObject({ statusCode: 302, error: 'DeliveryError:Redirect:302' });
  });
});
