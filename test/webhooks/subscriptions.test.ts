import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../helpers/fixtures.js';

let t: TestApp;
let lyon: Awaited<ReturnType<typeof keysFor>>;
let paris: Awaited<ReturnType<typeof keysFor>>;

// Production settings: no WEBHOOK_ALLOW_PRIVATE.
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE });
  lyon = await keysFor(t.app, CENTRES.lyon.id);
  paris = await keysFor(t.app, CENTRES.paris.id);
});
afterAll(() => t?.close());

const create = (headers: Record<string, string>, payload: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/admin/webhooks', headers, payload: payload as object });
const HOOK = { url: 'https://hooks.example.com/stages', events: ['reservation.created', 'session.changed'] };

describe('webhook subscriptions', () => {
  it('shows the signing secret once, for the partner’s own centre, and never again', async () => {
    const res = await create(lyon.partner, HOOK);
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ ...HOOK, centreId: CENTRES.lyon.id, disabledAt: null, failingSince: null });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.headers.location).toBe(`/api/admin/webhooks/${created.id}`);
    const list = await t.app.inject({ url: '/api/admin/webhooks', headers: lyon.partner });
    expect(list.json().data.map((w: { id: string }) => w.id)).toContain(created.id);
    const one = await t.app.inject({ url: `/api/admin/webhooks/${created.id}`, headers: lyon.partner });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ id: created.id, deliveries: [] });
    for (const body of [list.body, one.body]) {
      expect(body).not.toContain(created.secret);
      expect(body).not.toContain('whsec_');
    }
  });

  it('keeps a partner to its own centre: subscribing for, reading, testing or deleting another’s is a 403', async () => {
    // Authorisation before validation: a bad body for another centre is still a 403.
    for (const payload of [
      { ...HOOK, centreId: CENTRES.lyon.id },
      { centreId: CENTRES.lyon.id, events: 'nope' },
    ]) {
      const res = await create(paris.partner, payload);
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const mine = (await create(lyon.partner, HOOK)).json();
    const theirs = await t.app.inject({ url: '/api/admin/webhooks', headers: paris.partner });
    expect(theirs.json().data.map((w: { id: string }) => w.id)).not.toContain(mine.id);
    for (const [method, url] of [
      ['GET', `/api/admin/webhooks/${mine.id}`],
      ['DELETE', `/api/admin/webhooks/${mine.id}`],
      ['POST', `/api/admin/webhooks/${mine.id}/test`],
      // An id of nothing answers the same: ids tell no one what exists elsewhere.
      ['GET', '/api/admin/webhooks/00000000-0000-4000-8000-00000000dead'],
    ] as const)
      expect((await t.app.inject({ method, url, headers: paris.partner })).statusCode).toBe(403);
    // The operator sees every centre's; an unknown id is a 404 to it.
    const all = await t.app.inject({ url: '/api/admin/webhooks', headers: lyon.admin });
    expect(all.json().data.map((w: { id: string }) => w.id)).toContain(mine.id);
    expect(
      (await t.app.inject({ url: '/api/admin/webhooks/00000000-0000-4000-8000-00000000dead', headers: lyon.admin }))
        .statusCode,
    ).toBe(404);
    // Its owner deletes it.
    const gone = await t.app.inject({ method: 'DELETE', url: `/api/admin/webhooks/${mine.id}`, headers: lyon.partner });
    expect(gone.statusCode).toBe(204);
    expect((await t.app.inject({ url: `/api/admin/webhooks/${mine.id}`, headers: lyon.partner })).statusCode).toBe(403);
  });

  it('lets an operator subscribe for all centres or one that exists', async () => {
    const all = await create(lyon.admin, HOOK);
    expect(all.statusCode).toBe(201);
    expect(all.json().centreId).toBeNull();
    const unknown = await create(lyon.admin, { ...HOOK, centreId: '00000000-0000-4000-8000-00000000dead' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual([expect.objectContaining({ name: 'centreId' })]);
  });

  it.each([
    ['http://hooks.example.com/in', /https/],
    ['https://127.0.0.1/in', /public internet/],
    ['https://10.0.0.8/in', /public internet/],
    ['https://[::1]/in', /public internet/],
    ['https://[::ffff:169.254.169.254]/in', /public internet/],
    ['https://localhost:8443/in', /public internet/],
    ['not a url', /absolute URL/],
  ])('refuses %s without WEBHOOK_ALLOW_PRIVATE, naming url', async (url, reason) => {
    const res = await create(lyon.partner, { ...HOOK, url });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      expect.objectContaining({ name: 'url', reason: expect.stringMatching(reason) }),
    ]);
  });

  it('names a bad event list', async () => {
    for (const events of [[], ['reservation.deleted'], ['session.changed', 'session.changed']]) {
      const res = await create(lyon.partner, { ...HOOK, events });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors[0].name).toMatch(/^events/);
    }
  });

  it('needs an API key', async () => {
    expect((await t.app.inject({ url: '/api/admin/webhooks' })).statusCode).toBe(401);
  });
});
