import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../src/admin/api-keys.js';
import { keysFor, NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { register, tokenFor } from '../helpers/oauth.js';

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
const NEW_CENTRE_ID = '20000000-0000-4000-8000-000000000001';
const NEW_SESSION_ID = '30000000-0000-4000-8000-000000000001';

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

const json = (res: { body: string }) => JSON.parse(res.body);
const publicIds = async (query: string) =>
  (json(await t.app.inject(`/api/stages?${query}`)).data as { id: string }[]).map((s) => s.id);
const check = async (sessionId: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'check_availability', arguments: { sessionId } },
    },
  });
  return json(res).result;
};

describe('who may write', () => {
  it('asks for a key with a challenge when none is sent', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}` });
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="admin"');
    expect(json(res).code).toBe('unauthenticated');
  });

  it('refuses an unknown, a malformed or a revoked key with 401 invalid_token', async () => {
    for (const authorization of [
      'Bearer sk_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      'Bearer nope',
    ]) {
      const res = await t.app.inject({ url: '/api/admin/sessions', headers: { authorization } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    const basic = await t.app.inject({ url: '/api/admin/sessions', headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    expect(basic.statusCode).toBe(401);
    expect(basic.headers['www-authenticate']).toContain('error="invalid_request"');

    const extra = await keysFor(t.app, CENTRES.lyon.id);
    expect((await t.app.inject({ url: '/api/admin/sessions', headers: extra.admin })).statusCode).toBe(200);
    await revokeApiKey(t.app.database.db, extra.adminId, new Date());
    const revoked = await t.app.inject({ url: '/api/admin/sessions', headers: extra.admin });
    expect(revoked.statusCode).toBe(401);
  });

  it('refuses an agent access token with 403 on every admin route', async () => {
    const token = await tokenFor(t.app, await register(t.app));
    const authorization = `Bearer ${token}`;
    // The same token is good for the MCP endpoint: it is a valid agent credential.
    expect((await check(SESSIONS.lyonMar5.id)).isError).toBeFalsy();
    for (const [method, url, payload] of [
      ['GET', '/api/admin/sessions'],
      ['GET', `/api/admin/sessions/${SESSIONS.lyonMar5.id}`],
      ['PATCH', `/api/admin/sessions/${SESSIONS.lyonMar5.id}`, { priceEuros: 1 }],
      ['POST', `/api/admin/sessions/${SESSIONS.lyonMar5.id}/places`, { change: -1 }],
      ['PUT', `/api/admin/centres/${NEW_CENTRE_ID}`, NEW_CENTRE],
      ['POST', '/api/admin/import', { centres: [], sessions: [] }],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
      expect(json(res).code).toBe('agent_credential_forbidden');
    }
    expect((await publicIds('dept=69&includeUnavailable=true')).length).toBeGreaterThan(0);
  });

  it("keeps a partner key to its own centre's sessions, and away from centres", async () => {
    const other = SESSIONS.parisMar12.id;
    for (const [method, url, payload] of [
      ['GET', `/api/admin/sessions/${other}`],
      ['PATCH', `/api/admin/sessions/${other}`, { priceEuros: 100 }],
      ['POST', `/api/admin/sessions/${other}/places`, { change: -1 }],
      ['PUT', `/api/admin/sessions/${other}`, newSession(CENTRES.paris.id, { courseNumber: 'P-1' })],
      ['GET', `/api/admin/sessions?centreId=${CENTRES.paris.id}`],
      ['PUT', `/api/admin/centres/${NEW_CENTRE_ID}`, NEW_CENTRE],
      ['GET', `/api/admin/centres/${CENTRES.paris.id}`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: keys.partner, ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(403);
    }
    const list = json(await t.app.inject({ url: '/api/admin/sessions', headers: keys.partner }));
    expect(list.data.length).toBeGreaterThan(0);
    expect(new Set(list.data.map((s: { centreId: string }) => s.centreId))).toEqual(new Set([CENTRES.lyon.id]));
    // The Paris session is untouched.
    expect((await check(other)).structuredContent.priceEuros).toBe(279.5);
  });
});

describe('centres', () => {
  it('names every bad field, and writes nothing', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: keys.admin,
      payload: { ...NEW_CENTRE, deptCode: '99', slug: 'Not A Slug', lat: 'north' },
    });
    expect(res.statusCode).toBe(400);
    const names = json(res).errors.map((e: { name: string }) => e.name);
    expect(names).toEqual(expect.arrayContaining(['deptCode', 'slug', 'lat']));

    const crossField = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: keys.admin,
      payload: { ...NEW_CENTRE, postalCode: '75011', lat: 16.2, agrementNumber: 'R2407500123' },
    });
    expect(crossField.statusCode).toBe(400);
    const reasons = Object.fromEntries(
      json(crossField).errors.map((e: { name: string; reason: string }) => [e.name, e.reason]),
    );
    expect(reasons.postalCode).toContain('serves no commune of department 69');
    expect(reasons.lat).toContain('must lie in department 69');
    expect(reasons.agrementNumber).toContain('069');

    const unknownField = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: keys.admin,
      payload: { ...NEW_CENTRE, website: 'x' },
    });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.body).toContain('website');
    expect((await t.app.inject({ url: `/api/admin/centres/${NEW_CENTRE_ID}`, headers: keys.admin })).statusCode).toBe(
      404,
    );
  });

  it('creates a centre (201), replaces it (200), and refuses a slug another centre holds (409)', async () => {
    const created = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: keys.admin,
      payload: NEW_CENTRE,
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(json(created)).toMatchObject({ id: NEW_CENTRE_ID, deptCode: '69', email: NEW_CENTRE.email });

    const replaced = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: { ...keys.admin, 'if-match': created.headers.etag as string },
      payload: { ...NEW_CENTRE, name: 'Route Sereine Villeurbanne Gratte-Ciel' },
    });
    expect(replaced.statusCode).toBe(200);
    expect(replaced.headers.etag).not.toBe(created.headers.etag);

    const taken = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/centres/20000000-0000-4000-8000-000000000099',
      headers: keys.admin,
      payload: { ...NEW_CENTRE, slug: CENTRES.lyon.slug, agrementNumber: 'R2406900999' },
    });
    expect(taken.statusCode).toBe(409);
    expect(json(taken).errors).toEqual([{ name: 'slug', reason: expect.stringContaining('already used') }]);
  });

  it('answers 413 for a body over the limit and 415 for a wrong content type', async () => {
    const big = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: { ...keys.admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ ...NEW_CENTRE, name: 'x'.repeat(70_000) }),
    });
    expect(big.statusCode).toBe(413);
    const form = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${NEW_CENTRE_ID}`,
      headers: { ...keys.admin, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'slug=x',
    });
    expect(form.statusCode).toBe(415);
    expect(form.headers['content-type']).toContain('application/problem+json');
  });
});

describe('sessions', () => {
  it('creates a session that search, check_availability and the site serve at once', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${NEW_SESSION_ID}`,
      headers: keys.admin,
      payload: newSession(NEW_CENTRE_ID),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res)).toMatchObject({ day2: '2030-03-20', priceEuros: 229.5, status: 'scheduled' });
    expect(await publicIds('city=villeurbanne')).toEqual([NEW_SESSION_ID]);
    expect((await check(NEW_SESSION_ID)).structuredContent).toMatchObject({ status: 'available', spotsAvailable: 12 });
    const page = await t.app.inject({ url: `/stages/${NEW_SESSION_ID}`, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Villeurbanne');
    // The centre's private email is in no public answer.
    const all = await t.app.inject('/api/stages?city=villeurbanne&includeUnavailable=true');
    expect(all.body).not.toContain(NEW_CENTRE.email);
    expect(page.body).not.toContain(NEW_CENTRE.email);
  });

  it('refuses bad sessions field by field: day2, Sundays, holidays, times, places, unknown centre', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ day2: '2030-03-21' }, 'day2', 'day after day1'],
      [{ day1: '2030-03-23' }, 'day2', 'Sunday'],
      [{ day1: '2030-03-24' }, 'day1', 'Sunday'],
      [{ day1: '2030-05-01' }, 'day1', 'public holiday'],
      [{ endTime: '08:00' }, 'endTime', 'after startTime'],
      [{ startTime: '25:00' }, 'startTime', 'HH:MM'],
      // Not a date: reported as such, never reaching the calendar checks (npm run fuzz found a 500).
      [{ day1: '. sy$#$%' }, 'day1', 'YYYY-MM-DD'],
      [{ day1: '2030-02-30' }, 'day1', 'YYYY-MM-DD'],
      // A real date, past the years a course can be held in (its second day's holidays were a 500).
      [{ day1: '9999-12-31', day2: undefined }, 'day1', 'from 2000-01-01 to 2199-12-31'],
      [{ declaredOn: '0001-01-01' }, 'declaredOn', 'from 2000-01-01 to 2199-12-31'],
      [{ spotsAvailable: 21 }, 'spotsAvailable', 'at most capacity'],
      [{ capacity: 45, spotsAvailable: 3 }, 'capacity', '6 to 20'],
      [{ priceEuros: 0 }, 'priceEuros', 'at least 0.01'],
      // Positive, yet 0 cents once rounded (found by npm run fuzz: it was a 500 from the database).
      [{ priceEuros: 7.4e-323 }, 'priceEuros', 'at least 0.01'],
      [{ priceEuros: 0.004 }, 'priceEuros', 'at least 0.01'],
      [{ priceEuros: 99.999 }, 'priceEuros', '2 decimals'],
      [{ courseNumber: '' }, 'courseNumber', 'empty'],
      [{ status: 'postponed' }, 'status', 'scheduled'],
    ];
    for (const [fields, name, reason] of cases) {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/api/admin/sessions/30000000-0000-4000-8000-000000000002',
        headers: keys.admin,
        payload: newSession(NEW_CENTRE_ID, { courseNumber: 'C-2', ...fields }),
      });
      expect(res.statusCode, JSON.stringify(fields)).toBe(400);
      expect(json(res).errors, JSON.stringify(fields)).toContainEqual({
        name,
        reason: expect.stringContaining(reason),
      });
    }
    const orphan = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/sessions/30000000-0000-4000-8000-000000000002',
      headers: keys.admin,
      payload: newSession('20000000-0000-4000-8000-00000000dead', { courseNumber: 'C-2' }),
    });
    expect(orphan.statusCode).toBe(400);
    expect(json(orphan).errors[0].name).toBe('centreId');
    const badId = await t.app.inject({
      method: 'PUT',
      url: '/api/admin/sessions/nope',
      headers: keys.admin,
      payload: newSession(NEW_CENTRE_ID),
    });
    expect(badId.statusCode).toBe(400);
    expect(json(badId).errors[0].name).toBe('id');
    expect(
      (await t.app.inject({ url: '/api/admin/sessions/30000000-0000-4000-8000-000000000002', headers: keys.admin }))
        .statusCode,
    ).toBe(404);
  });

  it('changes the price and the places with PATCH, guarded by If-Match', async () => {
    const read = await t.app.inject({ url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`, headers: keys.partner });
    expect(read.statusCode).toBe(200);
    const etag = read.headers.etag as string;
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: { ...keys.partner, 'if-match': etag },
      payload: { priceEuros: 199, spotsAvailable: 9 },
    });
    expect(patched.statusCode, patched.body).toBe(200);
    expect((await check(SESSIONS.lyonMar5.id)).structuredContent).toMatchObject({ priceEuros: 199, spotsAvailable: 9 });

    const stale = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: { ...keys.partner, 'if-match': etag },
      payload: { priceEuros: 150 },
    });
    expect(stale.statusCode).toBe(412);
    expect((await check(SESSIONS.lyonMar5.id)).structuredContent.priceEuros).toBe(199);

    const tooMany = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: keys.partner,
      payload: { capacity: 8 },
    });
    expect(tooMany.statusCode).toBe(400);
    expect(json(tooMany).errors).toContainEqual({
      name: 'spotsAvailable',
      reason: expect.stringContaining('at most capacity (8)'),
    });
    const empty = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${SESSIONS.lyonMar5.id}`,
      headers: keys.partner,
      payload: {},
    });
    expect(empty.statusCode).toBe(400);
  });

  it('cancels: the session leaves search at once and says so everywhere', async () => {
    const id = SESSIONS.stEtienneMar5.id;
    expect(await publicIds('dept=42')).toContain(id);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: keys.admin,
      payload: { status: 'cancelled' },
    });
    expect(res.statusCode).toBe(200);
    expect(await publicIds('dept=42&includeUnavailable=true')).not.toContain(id);
    const checked = (await check(id)).structuredContent;
    expect(checked).toMatchObject({ status: 'cancelled', bookable: false });
    expect(checked.message).toContain('cancelled');
    const rest = await t.app.inject(`/api/stages/${id}`);
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toMatchObject({ status: 'cancelled', bookable: false });
    const page = await t.app.inject({ url: `/stages/${id}`, headers: { accept: 'text/html' } });
    expect(page.body).toContain('annulé');
    expect(page.body).toContain('EventCancelled');
    const places = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${id}/places`,
      headers: keys.admin,
      payload: { change: -1 },
    });
    expect(places.statusCode).toBe(409);
    expect(json(places).code).toBe('session_cancelled');
    // And back.
    await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: keys.admin,
      payload: { status: 'scheduled' },
    });
    expect(await publicIds('dept=42')).toContain(id);
  });

  it('lists sessions with filters and a cursor, past, full and cancelled included', async () => {
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.app.inject({
        url: `/api/admin/sessions?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        headers: keys.admin,
      });
      expect(res.statusCode, res.body).toBe(200);
      const page = json(res);
      all.push(...page.data.map((s: { id: string }) => s.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(all).toContain(SESSIONS.lyonPast.id);
    expect(all).toContain(SESSIONS.parisMar6Full.id);
    expect(new Set(all).size).toBe(all.length);
    const lyon = json(
      await t.app.inject({
        url: `/api/admin/sessions?centreId=${CENTRES.lyon.id}&from=2030-03-01&to=2030-03-31`,
        headers: keys.admin,
      }),
    );
    expect(lyon.data.map((s: { id: string }) => s.id).sort()).toEqual(
      [SESSIONS.lyonMar5.id, SESSIONS.lyonMar5Early.id].sort(),
    );
    const bad = await t.app.inject({ url: '/api/admin/sessions?status=gone&limit=0', headers: keys.admin });
    expect(bad.statusCode).toBe(400);
    expect(
      json(bad)
        .errors.map((e: { name: string }) => e.name)
        .sort(),
    ).toEqual(['limit', 'status']);
  });
});

describe('places', () => {
  // A group holds 6 to 20 people by law, so a session has at most 20 places: 100 concurrent calls
  // on 20 places must succeed exactly 20 times.
  it('applies 100 concurrent {"change": -1} on 20 places exactly 20 times', async () => {
    const id = '30000000-0000-4000-8000-000000000050';
    const created = await t.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${id}`,
      headers: keys.admin,
      payload: newSession(NEW_CENTRE_ID, { courseNumber: 'C-50', capacity: 20, spotsAvailable: 20 }),
    });
    expect(created.statusCode).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 100 }, () =>
        t.app.inject({
          method: 'POST',
          url: `/api/admin/sessions/${id}/places`,
          headers: keys.admin,
          payload: { change: -1 },
        }),
      ),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(20);
    expect(codes.filter((c) => c === 409)).toHaveLength(80);
    expect(json(results.find((r) => r.statusCode === 409) as { body: string }).code).toBe('places_out_of_range');
    expect((await check(id)).structuredContent).toMatchObject({ spotsAvailable: 0, status: 'full' });
    const over = await t.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${id}/places`,
      headers: keys.admin,
      payload: { change: 21 },
    });
    expect(over.statusCode).toBe(409);
  });

  it('applies a retried call with the same Idempotency-Key once', async () => {
    const id = SESSIONS.bourgMar14.id;
    const before = (await check(id)).structuredContent.spotsAvailable as number;
    const call = (key: string, change = -1) =>
      t.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${id}/places`,
        headers: { ...keys.admin, 'idempotency-key': key },
        payload: { change },
      });
    const [a, b] = await Promise.all([call('sale-42'), call('sale-42')]);
    const c = await call('sale-42');
    expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([200, 200, 200]);
    expect(json(c).spotsAvailable).toBe(before - 1);
    expect(c.headers['idempotent-replayed']).toBe('true');
    expect((await check(id)).structuredContent.spotsAvailable).toBe(before - 1);
    const reused = await call('sale-42', -2);
    expect(reused.statusCode).toBe(422);
    expect(json(reused).code).toBe('idempotency_key_reused');
    const bad = await call('');
    expect(bad.statusCode).toBe(400);
    expect((await check(id)).structuredContent.spotsAvailable).toBe(before - 1);
  });
});

describe('the write side in the OpenAPI description', () => {
  it('describes every admin operation under its own tag with the API-key security scheme', async () => {
    const doc = json(await t.app.inject('/openapi.json'));
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const ops = Object.entries(doc.paths as Record<string, Record<string, { tags: string[]; security: unknown }>>)
      .filter(([path]) => path.startsWith('/api/admin/'))
      .flatMap(([, methods]) => Object.values(methods));
    expect(ops.length).toBeGreaterThanOrEqual(8);
    for (const op of ops) {
      // Webhook subscriptions are admin operations with a section of their own in /docs.
      expect([['admin'], ['webhooks']]).toContainEqual(op.tags);
      expect(op.security).toEqual([{ apiKey: [] }]);
    }
  });
});
