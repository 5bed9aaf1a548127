import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { bookPlace } from '../../src/reservations/repository.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, submit } from '../helpers/booking.js';
import { TEST_DB } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS } from '../helpers/mcp.js';
import { openStream } from '../helpers/sse.js';

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
let base: string;
const lyon = CENTRES.lyon;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, lyon.id);
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const patch = (id: string, payload: unknown, headers: Record<string, string> = keys.admin) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/centres/${id}`, headers, payload: payload as object });
const listedIds = async (app: FastifyInstance, query = 'limit=100') =>
  ((await app.inject(`/api/stages?${query}`)).json().data as { id: string; centre: { id: string } }[]).map(
    (s) => s.centre.id,
  );

async function mcpCall(name: string, args: Record<string, unknown>) {
  const client = await connect(new URL('/api/mcp', base), ERAS[0] as (typeof ERAS)[number], {
    origin: 'https://stages.example.test',
  });
  try {
    return (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      content: { type: string; text: string }[];
    };
  } finally {
    await client.close();
  }
}

describe('suspending a centre', () => {
  it('takes it off every public answer, keeps its bookings, refuses new ones, and restoring brings it back', async () => {
    // A booking made before the suspension.
    const form = await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`);
    expect((await submit(t.app, SESSIONS.lyonMar5.id, form)).statusCode).toBe(303);
    const placesBefore = await placesLeft(t.app, SESSIONS.lyonMar5.id);
    expect(await listedIds(t.app)).toContain(lyon.id);
    const laterForm = await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`);

    const stream = await openStream(`${base}/api/stages/events`);
    await stream.until((e) => e.some((x) => x.retry === '2000'));

    const res = await patch(lyon.id, { suspended: true, suspensionReason: 'Agrément retiré par la préfecture' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: lyon.id,
      suspended: true,
      suspensionReason: 'Agrément retiré par la préfecture',
    });
    expect(res.json().suspendedAt).toEqual(expect.any(String));

    // REST: in no list, and unknown by id.
    expect(await listedIds(t.app)).not.toContain(lyon.id);
    expect(await listedIds(t.app, 'dept=69')).toEqual([]);
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(404);
    // MCP: the centre and its sessions are unknown.
    const centre = await mcpCall('get_centre', { idOrSlug: lyon.slug });
    expect(centre.isError).toBe(true);
    expect(JSON.stringify(centre.content)).not.toContain('Centre Lyon');
    const availability = await mcpCall('check_availability', { sessionId: SESSIONS.lyonMar5.id });
    expect(availability.isError).toBe(true);
    const search = await mcpCall('search_stages', { dept: '69' });
    expect(JSON.stringify(search.content)).not.toContain(SESSIONS.lyonMar5.id);
    // The site: pages and sitemap.
    expect((await t.app.inject(`/stages/${SESSIONS.lyonMar5.id}`)).statusCode).toBe(404);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(404);
    expect((await t.app.inject('/sitemap.xml')).body).not.toContain(lyon.slug);
    expect((await t.app.inject('/departements/69')).body).not.toContain('Centre Lyon');
    // The change stream says its sessions were removed.
    await stream.until(() => stream.sessions().some((s) => s.id === SESSIONS.lyonMar5.id));
    expect(stream.sessions().find((s) => s.id === SESSIONS.lyonMar5.id)).toMatchObject({ status: 'removed' });
    await stream.close();

    // A booking sent from a page opened before the suspension is refused with a readable page.
    const refused = await submit(t.app, SESSIONS.lyonMar5.id, laterForm, { ...PERSON, email: 'autre@example.org' });
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toContain('aucune réservation n’a été faite');

    // The bookings are kept, and the operator lists them.
    const booked = await t.app.inject({
      url: `/api/admin/reservations?sessionId=${SESSIONS.lyonMar5.id}`,
      headers: keys.admin,
    });
    expect(booked.statusCode).toBe(200);
    const rows = booked.json().data as { email: string; status: string }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).not.toBe('cancelled');
    // The operator still reads the centre, suspended.
    const read = await t.app.inject({ url: `/api/admin/centres/${lyon.id}`, headers: keys.admin });
    expect(read.json()).toMatchObject({ suspended: true });

    // Restoring brings everything back.
    const restore = await patch(lyon.id, { suspended: false });
    expect(restore.statusCode).toBe(200);
    expect(restore.json()).toMatchObject({ suspended: false, suspendedAt: null, suspensionReason: null });
    expect(await listedIds(t.app)).toContain(lyon.id);
    expect(await placesLeft(t.app, SESSIONS.lyonMar5.id)).toBe(placesBefore);
    expect((await t.app.inject(`/centres/${lyon.slug}`)).statusCode).toBe(200);
    expect((await mcpCall('get_centre', { idOrSlug: lyon.slug })).isError).toBeFalsy();
    expect((await t.app.inject('/sitemap.xml')).body).toContain(lyon.slug);

    // The history says who suspended and restored it.
    const history = await t.app.inject({ url: `/api/admin/history?centreId=${lyon.id}`, headers: keys.admin });
    const fields = (history.json().data as { field: string; newValue: string | null }[]).map(
      (h) => `${h.field}=${h.newValue}`,
    );
    expect(fields).toContain('suspended=true');
    expect(fields).toContain('suspended=false');
  });

  it('is refused in the database too: a booking that reaches it after the suspension takes no place', async () => {
    expect((await patch(CENTRES.paris.id, { suspended: true, suspensionReason: 'Contrôle en cours' })).statusCode).toBe(
      200,
    );
    const outcome = await bookPlace(t.app.database.db, {
      sessionId: SESSIONS.parisMar12.id,
      details: { ...PERSON, reason: 'voluntary' } as never,
      browser: 'b'.repeat(22),
      now: new Date(FIXTURE_NOW),
    });
    expect(outcome.kind).toBe('closed');
    expect((await patch(CENTRES.paris.id, { suspended: false })).statusCode).toBe(200);
    expect((await t.app.inject(`/api/stages/${SESSIONS.parisMar12.id}`)).statusCode).toBe(200);
  });

  it('is for operator keys only, with a reason, on a centre that exists', async () => {
    const partner = await patch(lyon.id, { suspended: true, suspensionReason: 'moi-même' }, keys.partner);
    expect(partner.statusCode).toBe(403);
    const noReason = await patch(lyon.id, { suspended: true });
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().errors[0]).toMatchObject({ name: 'suspensionReason' });
    const unknown = await patch('20000000-0000-4000-8000-00000000ffff', { suspended: true, suspensionReason: 'xyz' });
    expect(unknown.statusCode).toBe(404);
    expect(await listedIds(t.app)).toContain(lyon.id);
  });
});

describe('on two instances of one database', () => {
  it('the other instance drops the suspended centre within a second, and takes it back on restore', async () => {
    const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
    const second = await buildApp(testConfig(), {
      database: db2 ?? t.db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: false,
    });
    await second.ready();
    try {
      const waitFor = async (ok: (ids: string[]) => boolean) => {
        const started = Date.now();
        while (!ok(await listedIds(second))) {
          if (Date.now() - started > 1000) throw new Error('not seen by the second instance within a second');
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await waitFor((ids) => ids.includes(CENTRES.stEtienne.id));
      expect((await patch(CENTRES.stEtienne.id, { suspended: true, suspensionReason: 'Contrôle' })).statusCode).toBe(
        200,
      );
      await waitFor((ids) => !ids.includes(CENTRES.stEtienne.id));
      expect((await patch(CENTRES.stEtienne.id, { suspended: false })).statusCode).toBe(200);
      await waitFor((ids) => ids.includes(CENTRES.stEtienne.id));
    } finally {
      await second.close();
      await db2?.close();
    }
  });
});
