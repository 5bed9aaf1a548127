import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { openTestDatabase } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { register, tokenFor } from '../helpers/oauth.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

interface Reservation {
  id: string;
  reference: string;
  sessionId: string;
  centreId: string;
  status: string;
  email: string | null;
  phone: string | null;
  cancelledBy: string | null;
}

async function book(t: TestApp, sessionId: string, fields: Record<string, string> = PERSON) {
  const res = await submit(t.app, sessionId, await openForm(t.app, `/stages/${sessionId}`), fields);
  expect(res.statusCode, res.body.slice(0, 200)).toBe(303);
  return privatePath(res.headers.location);
}

describe('the centre sees and handles its reservations through the partner API', () => {
  let t: TestApp;
  let keys: Awaited<ReturnType<typeof keysFor>>;
  let other: Awaited<ReturnType<typeof keysFor>>;
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    keys = await keysFor(t.app, CENTRES.lyon.id);
    other = await keysFor(t.app, CENTRES.paris.id);
    await book(t, SESSIONS.lyonMar5Early.id);
    await book(t, SESSIONS.lyonMar5.id, { ...PERSON, email: 'second@example.org', reason: 'probationary' });
    await book(t, SESSIONS.parisMar12.id, { ...PERSON, email: 'paris@example.org' });
  });
  afterAll(() => t.close());

  const list = (headers: Record<string, string>, qs = '') =>
    t.app.inject({ url: `/api/admin/reservations${qs}`, headers });

  it("lists its own centre's reservations only, filtered by session and status; an admin key sees all", async () => {
    const own = await list(keys.partner);
    expect(own.statusCode).toBe(200);
    expect(own.headers['cache-control']).toBe('no-store');
    const data = (own.json() as { data: Reservation[] }).data;
    expect(data.map((r) => r.sessionId).sort()).toEqual([SESSIONS.lyonMar5.id, SESSIONS.lyonMar5Early.id].sort());
    expect(data.every((r) => r.centreId === CENTRES.lyon.id && r.status === 'pending')).toBe(true);
    // The centre needs the contact details: they are there, the phone in E.164.
    const early = data.find((r) => r.sessionId === SESSIONS.lyonMar5Early.id) as Reservation;
    expect(early).toMatchObject({ email: PERSON.email, phone: '+33612345678', reason: 'voluntary' });
    expect(early.reference).toMatch(/^SRP-[0-9A-Z]{4}-[0-9A-Z]{4}$/);

    const bySession = (await list(keys.partner, `?sessionId=${SESSIONS.lyonMar5.id}`)).json() as {
      data: Reservation[];
    };
    expect(bySession.data.map((r) => r.email)).toEqual(['second@example.org']);
    expect(((await list(keys.partner, '?status=confirmed')).json() as { data: unknown[] }).data).toEqual([]);
    // Another centre's session: nothing, whatever the filter says.
    const foreign = (await list(keys.partner, `?sessionId=${SESSIONS.parisMar12.id}`)).json() as { data: unknown[] };
    expect(foreign.data).toEqual([]);
    const all = (await list(keys.admin)).json() as { data: Reservation[] };
    expect(all.data).toHaveLength(3);
    // By reference, typed loosely.
    const ref = early.reference.toLowerCase().replace(/-/g, ' ');
    const found = (await list(keys.partner, `?reference=${encodeURIComponent(ref)}`)).json() as { data: Reservation[] };
    expect(found.data.map((r) => r.id)).toEqual([early.id]);
  });

  it('pages with a cursor, newest first, without skipping or repeating', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (
        await list(keys.admin, `?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json() as {
        data: Reservation[];
        nextCursor: string | null;
      };
      seen.push(...page.data.map((r) => r.id));
      cursor = page.nextCursor;
    } while (cursor);
    const whole = ((await list(keys.admin)).json() as { data: Reservation[] }).data.map((r) => r.id);
    expect(seen).toEqual(whole);
    expect(new Set(seen).size).toBe(3);
  });

  it('confirms, then cancels (the place comes back), and refuses what cannot be', async () => {
    const [r] = (
      (await list(keys.partner, `?sessionId=${SESSIONS.lyonMar5Early.id}`)).json() as { data: Reservation[] }
    ).data;
    const patch = (headers: Record<string, string>, status: string, id = r?.id) =>
      t.app.inject({ method: 'PATCH', url: `/api/admin/reservations/${id}`, headers, payload: { status } });
    expect(await placesLeft(t.app, SESSIONS.lyonMar5Early.id)).toBe(7);

    const confirmed = await patch(keys.partner, 'confirmed');
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({ status: 'confirmed' });
    expect((confirmed.json() as { confirmedAt: string }).confirmedAt).toMatch(/^\d{4}-/);
    // Another centre's key: the same 403 as for an id of nothing (test/admin/partner-scope.test.ts).
    const foreign = await patch(other.partner, 'cancelled');
    expect(foreign.statusCode).toBe(403);
    expect((await t.app.inject({ url: `/api/admin/reservations/${r?.id}`, headers: other.partner })).statusCode).toBe(
      403,
    );
    expect((await patch(keys.partner, 'pending')).statusCode).toBe(400);

    const cancelled = await patch(keys.partner, 'cancelled');
    expect(cancelled.json()).toMatchObject({ status: 'cancelled', cancelledBy: 'centre' });
    expect(await placesLeft(t.app, SESSIONS.lyonMar5Early.id)).toBe(8);
    // Again: nothing more given back; and a cancelled reservation is not confirmed again.
    expect((await patch(keys.partner, 'cancelled')).statusCode).toBe(200);
    expect(await placesLeft(t.app, SESSIONS.lyonMar5Early.id)).toBe(8);
    const reconfirm = await patch(keys.partner, 'confirmed');
    expect(reconfirm.statusCode).toBe(409);
    expect(reconfirm.headers['content-type']).toContain('application/problem+json');
    expect(reconfirm.json()).toMatchObject({ code: 'reservation_cancelled' });
    expect((await patch(keys.admin, 'confirmed', '00000000-0000-4000-8000-00000000dead')).statusCode).toBe(404);
  });

  it('an agent access token never reads reservations; no key is a 401', async () => {
    const token = await tokenFor(t.app, await register(t.app));
    for (const url of ['/api/admin/reservations', `/api/admin/reservations/00000000-0000-4000-8000-000000000001`]) {
      const agent = await t.app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      expect(agent.statusCode).toBe(403);
      expect(agent.json()).toMatchObject({ code: 'agent_credential_forbidden' });
      expect((await t.app.inject(url)).statusCode).toBe(401);
    }
  });
});

describe('what the centre writes cannot undo what people booked', () => {
  let t: TestApp;
  let keys: Awaited<ReturnType<typeof keysFor>>;
  const id = SESSIONS.lyonMar5Early.id; // capacity 20, 8 places
  beforeAll(async () => {
    t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    keys = await keysFor(t.app, CENTRES.lyon.id);
    await book(t, id);
    await book(t, id, { ...PERSON, email: 'deux@example.org' });
  });
  afterAll(() => t.close());
  const patch = (payload: Record<string, unknown>, url = `/api/admin/sessions/${id}`) =>
    t.app.inject({ method: 'PATCH', url, headers: keys.partner, payload });

  it('no figure a centre writes puts a booked place back on sale, and none passes the capacity', async () => {
    expect(await placesLeft(t.app, id)).toBe(6);
    const read = (await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: keys.partner })).json();
    expect(read).toMatchObject({ capacity: 20, spotsAvailable: 6, heldHere: 2 });
    // The centre's own system says 19 left, knowing nothing of the 2 bookings made here: 17 on sale.
    expect((await patch({ spotsAvailable: 19 })).json()).toMatchObject({ spotsAvailable: 17, heldHere: 2 });
    expect(await placesLeft(t.app, id)).toBe(17);
    // A figure that counts both bookings already: they are not subtracted twice.
    expect((await patch({ spotsAvailable: 18, heldHere: 2 })).json()).toMatchObject({ spotsAvailable: 18 });
    // A figure and the bookings it counts must fit in the group.
    const tooMany = await patch({ spotsAvailable: 19, heldHere: 2 });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors).toEqual([
      expect.objectContaining({ name: 'heldHere', reason: expect.stringContaining('at most capacity (20)') }),
    ]);
    const more = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${id}/places`,
      headers: keys.partner,
      payload: { change: 1 },
    });
    expect(more.statusCode).toBe(409);
    expect(more.json().detail).toContain('(2 held by reservations made here)');
    const smaller = await patch({ capacity: 19 });
    expect(smaller.statusCode).toBe(409);
    expect(smaller.json()).toMatchObject({ code: 'places_held_by_reservations' });
    expect((await patch({ capacity: 6, spotsAvailable: 0 })).json()).toMatchObject({ spotsAvailable: 0, heldHere: 2 });
    expect(await placesLeft(t.app, id)).toBe(0);
  });

  it('a session the centre cancels cancels its reservations, and their pages say so', async () => {
    const other = SESSIONS.stEtienneMar5.id;
    const path = await book(t, other);
    const cancel = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${other}`,
      headers: keys.admin,
      payload: { status: 'cancelled' },
    });
    expect(cancel.statusCode).toBe(200);
    const page = (await t.app.inject(path)).body;
    expect(page).toContain('Réservation annulée');
    expect(page).toContain('Le centre a annulé cette réservation : le stage n’aura pas lieu');
    expect(page).not.toContain('Annuler ma réservation');
    const list = (
      await t.app.inject({ url: `/api/admin/reservations?sessionId=${other}`, headers: keys.admin })
    ).json() as { data: Reservation[] };
    expect(list.data.map((r) => [r.status, r.cancelledBy])).toEqual([['cancelled', 'centre']]);
  });

  it('a session moved to another centre takes its reservations with it', async () => {
    const parisKeys = await keysFor(t.app, CENTRES.paris.id);
    const session = (await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: keys.admin })).json() as Record<
      string,
      unknown
    >;
    const { id: _, updatedAt: __, status: ___, ...body } = session;
    const moved = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${id}`,
      headers: keys.admin,
      payload: { ...body, centreId: CENTRES.paris.id },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const paris = (
      await t.app.inject({ url: `/api/admin/reservations?sessionId=${id}`, headers: parisKeys.partner })
    ).json() as {
      data: Reservation[];
    };
    expect(paris.data).toHaveLength(2);
    const lyon = (
      await t.app.inject({ url: `/api/admin/reservations?sessionId=${id}`, headers: keys.partner })
    ).json() as {
      data: Reservation[];
    };
    expect(lyon.data).toEqual([]);
  });
});

describe('personal data stays private', () => {
  it('appears in no public answer, no agent answer and no log line', async () => {
    const db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    const lines: string[] = [];
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info', LOG_SAMPLE_READS: '1' }), {
      database: db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    const t: TestApp = { app, db, close: async () => {} };
    try {
      const person = {
        ...PERSON,
        firstName: 'Zéphyrine',
        lastName: 'Quintal-Barbeau',
        email: 'zephyrine.quintal@example.org',
        phone: '07 98 76 54 32',
      };
      const session = SESSIONS.lyonMar5.id;
      const before = ((await app.inject('/api/health')).json() as { catalogue: { version: number } }).catalogue.version;
      const path = await book(t, session, person);
      const token = path.split('/')[2] as string;
      const reference = /SRP-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec((await app.inject(path)).body)?.[0] as string;
      expect(reference).toBeDefined();

      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      const client = new Client({ name: 'pii-check', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', address)));
      const agent = await Promise.all([
        client.callTool({ name: 'search_stages', arguments: { dept: '69', includeUnavailable: true } }),
        client.callTool({ name: 'check_availability', arguments: { sessionId: session } }),
        client.callTool({ name: 'get_centre', arguments: { idOrSlug: 'centre-lyon' } }),
        client.callTool({ name: 'list_articles', arguments: {} }),
      ]);
      await client.close();
      const publicPaths = [
        '/api/stages?dept=69&includeUnavailable=true',
        '/api/stages?city=lyon',
        `/api/stages/${session}`,
        `/stages/${session}`,
        '/centres/centre-lyon',
        '/departements/69',
        '/',
        '/sitemap.xml',
        '/llms.txt',
        '/openapi.json',
        '/.well-known/mcp/server-card.json',
        '/api/health',
      ];
      const answers = await Promise.all(publicPaths.map((p) => app.inject(p).then((r) => `${p}\n${r.body}`)));
      // Addresses near the private link that match no page, or that are not pages: the log must not keep the secret.
      for (const near of [`${path}/x`, `${path}/annulation`, `${path}?utm=1`]) await app.inject(near);
      // The change stream replays the booking's change.
      const events = await fetch(`${address}/api/stages/events?lastEventId=${before}`, {
        signal: AbortSignal.timeout(1500),
      }).then(async (r) => {
        let text = '';
        const reader = (r.body as ReadableStream<Uint8Array>).getReader();
        try {
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            text += Buffer.from(value).toString();
          }
        } catch {
          // the timeout ends the stream
        }
        return text;
      });
      expect(events).toContain(session);

      const haystacks = [...answers, JSON.stringify(agent), events, lines.join('\n')];
      const secrets = [
        person.email,
        'zephyrine',
        'Zéphyrine',
        'Quintal',
        '98 76 54 32',
        '+33798765432',
        '798765432',
        reference,
        token,
      ];
      for (const hay of haystacks) {
        for (const secret of secrets) expect(hay.toLowerCase(), hay.slice(0, 60)).not.toContain(secret.toLowerCase());
      }
      // The logs did see these requests: the booking and the private page, with the link's secret left out.
      const logged = lines.map((l) => JSON.parse(l) as { url?: string; route?: string });
      expect(logged.some((l) => l.url === `/stages/${session}/reservation`)).toBe(true);
      expect(logged.some((l) => l.url === '/reservations/:token')).toBe(true);
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});

describe('personal data in the logs of a bad day', () => {
  it('a booking refused because the database is gone logs no personal data, and answers a 503 page', async () => {
    const db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    const lines: string[] = [];
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), {
      database: db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      const t: TestApp = { app, db, close: async () => {} };
      const form = await openForm(app, `/stages/${SESSIONS.lyonMar5.id}`);
      await db.database.close(); // the database goes away under the running service
      const person = { ...PERSON, email: 'gone.database@example.org', lastName: 'Introuvable' };
      const res = await submit(t.app, SESSIONS.lyonMar5.id, form, person);
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      expect(res.body).toContain('Rien n’a été enregistré');
      const log = lines.join('\n');
      expect(log).toContain('database unavailable; reservation page answered 503');
      for (const secret of [person.email, person.lastName, '612345678']) expect(log).not.toContain(secret);
    } finally {
      await app.close();
      await db.dispose().catch(() => {});
    }
  });
});

describe('a booking the database refuses half-way', () => {
  it('takes no place (the transaction is undone), answers a readable 500 page and logs no personal data', async () => {
    const db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    const lines: string[] = [];
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info' }), {
      database: db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    try {
      // The place is taken first, then the reservation's INSERT fails (its statement quotes the person's details).
      await db.database.db.execute(
        sql`alter table reservations add constraint drill_refuse_all check (false) not valid`,
      );
      const person = { ...PERSON, email: 'half.way@example.org', lastName: 'Demi-Chemin' };
      const res = await submit(
        app,
        SESSIONS.lyonMar5.id,
        await openForm(app, `/stages/${SESSIONS.lyonMar5.id}`),
        person,
      );
      expect(res.statusCode).toBe(500);
      expect(res.body).toContain('La réservation n’a pas pu être enregistrée. Rien n’a été enregistré');
      expect(await placesLeft(app, SESSIONS.lyonMar5.id)).toBe(3);
      const log = lines.join('\n');
      // The failure by its SQLSTATE (check_violation), never by the statement or its message.
      expect(log).toContain('"code":"23514"');
      for (const secret of [person.email, 'Demi-Chemin', '612345678']) expect(log).not.toContain(secret);
    } finally {
      await app.close();
      await db.dispose();
    }
  });
});

describe('email, when SMTP_URL is set', () => {
  let smtp: TestSmtpServer;
  let received: ReceivedMail[];
  beforeAll(async () => {
    smtp = await startSmtpServer();
    received = smtp.received;
  });
  afterAll(() => smtp.close());
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it('sends the person a confirmation with the private link, and the centre a notice', async () => {
    t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Stages <reservations@stages.example.test>' },
    });
    // The centre's notice address, set through the operator API.
    const keys = await keysFor(t.app, CENTRES.lyon.id);
    const { id: _, ...lyon } = CENTRES.lyon;
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${CENTRES.lyon.id}`,
      headers: keys.admin,
      payload: { ...lyon, postalCode: '69003', email: 'accueil@centre-lyon.example', phone: '04 72 00 00 00' },
    });
    expect(put.statusCode, put.body).toBe(200);

    const path = await book(t, SESSIONS.lyonMar5.id);
    const page = (await t.app.inject(path)).body;
    expect(page).toContain(`Un e-mail de confirmation va être envoyé à <strong>${PERSON.email}</strong>`);
    // The link is on the page all the same: a mail can fail.
    expect(page).toContain(`https://stages.example.test${path}`);
    expect(page).toContain('04 72 00 00 00');
    const reference = /SRP-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(page)?.[0] as string;

    // Queued with the booking, sent by the jobs' worker.
    expect(await t.app.jobs.drain()).toBe(2);
    expect(received.length).toBe(2);
    const toPerson = received.find((m) => m.to === PERSON.email);
    const toCentre = received.find((m) => m.to === 'accueil@centre-lyon.example');
    expect(toPerson?.subject).toBe(`Réservation ${reference} : stage du mardi 5 mars 2030 à Lyon`);
    expect(toPerson?.text).toContain(`https://stages.example.test${path}`);
    expect(toPerson?.text).toContain('Le paiement se fait auprès du centre');
    expect(toPerson?.text).toContain('04 72 00 00 00');
    expect(toCentre?.subject).toBe(`Nouvelle réservation ${reference} : stage du mardi 5 mars 2030`);
    expect(toCentre?.text).toContain('Stagiaire : Éloïse N’Diaye-Martin');
    expect(toCentre?.text).toContain('Téléphone : +33 6 12 34 56 78');
    // The centre never receives the person's private link.
    expect(toCentre?.text).not.toContain(path);
  });

  it('a mail server that refuses does not lose the reservation', async () => {
    received.length = 0;
    t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      // Nothing listens on port 1.
      env: { SMTP_URL: 'smtp://127.0.0.1:1' },
    });
    const path = await book(t, SESSIONS.lyonMar5.id);
    await t.app.jobs.drain();
    expect((await t.app.inject(path)).statusCode).toBe(200);
    expect(await placesLeft(t.app, SESSIONS.lyonMar5.id)).toBe(2);
  });
});
