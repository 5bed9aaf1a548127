import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
const clock = frozenClock(FIXTURE_NOW);
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
});
afterAll(() => t.close());

async function get(query: string) {
  const res = await t.app.inject({ method: 'GET', url: `/api/stages${query}` });
  return { res, body: res.json() };
}
const ids = (body: { data: Array<{ id: string }> }) => body.data.map((s) => s.id);

describe('GET /api/stages', () => {
  it('answers the list envelope with every field of each session and centre', async () => {
    const { res, body } = await get('');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(body.object).toBe('list');
    expect(body.count).toBe(body.data.length);
    expect(body.platform).toBe('Stages Récup Points');
    expect(typeof body.description).toBe('string');
    expect(new Date(body.updatedAt).toISOString()).toBe(body.updatedAt);
    const first = body.data[0];
    expect(first).toEqual({
      id: SESSIONS.lyonMar5Early.id,
      day1: '2030-03-05',
      day2: '2030-03-06',
      startTime: '08:00',
      endTime: '16:00',
      priceEuros: 250,
      spotsAvailable: 8,
      bookingUrl: `${BASE_URL}/stages/${SESSIONS.lyonMar5Early.id}`,
      centre: {
        id: CENTRES.lyon.id,
        name: 'Centre Lyon',
        slug: 'centre-lyon',
        address: '1 rue A',
        city: 'Lyon',
        postalCode: '69003',
        deptCode: '69',
        deptName: 'Rhône',
        region: 'Auvergne-Rhône-Alpes',
        lat: 45,
        lng: 4,
        agrementNumber: 'R2306900001',
        url: `${BASE_URL}/centres/centre-lyon`,
      },
    });
  });

  it('returns upcoming bookable sessions by default, ordered by day, start time, price, id', async () => {
    const { body } = await get('');
    expect(ids(body)).toEqual([
      SESSIONS.lyonMar5Early.id, // 08:00 before 08:30
      SESSIONS.stEtienneMar5.id, // 08:30, 199 €
      SESSIONS.lyonMar5.id, // 08:30, 239 €
      SESSIONS.parisMar12.id,
      SESSIONS.ajaccioMar13.id,
      SESSIONS.bourgMar14.id,
      SESSIONS.reunionMar19.id,
    ]);
    expect(body.data.every((s: { spotsAvailable: number }) => s.spotsAvailable > 0)).toBe(true);
  });

  it('includes full sessions when includeUnavailable=true', async () => {
    const { body } = await get('?includeUnavailable=true');
    expect(ids(body)).toContain(SESSIONS.parisMar6Full.id);
    expect(ids(body)).toContain(SESSIONS.lyonApr2Full.id);
    expect(ids(body)).not.toContain(SESSIONS.lyonPast.id);
    expect(body.count).toBe(9);
  });

  it('never returns past sessions, even when from is in the past', async () => {
    const { body } = await get('?from=2030-01-01&includeUnavailable=true');
    expect(ids(body)).not.toContain(SESSIONS.lyonPast.id);
    expect(body.description).toContain('04/03/2030');
  });

  it('filters by city ignoring case, accents and punctuation', async () => {
    for (const city of ['saint etienne', 'SAINT-ÉTIENNE', 'étienne', 'Saint Etienne ']) {
      const { body } = await get(`?city=${encodeURIComponent(city)}`);
      expect(ids(body)).toEqual([SESSIONS.stEtienneMar5.id]);
    }
    const { body } = await get('?city=ly');
    expect(ids(body)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id]);
  });

  it('filters by department code in any common spelling', async () => {
    expect(ids((await get('?dept=69')).body)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id]);
    expect(ids((await get('?dept=1')).body)).toEqual([SESSIONS.bourgMar14.id]);
    expect(ids((await get('?dept=01')).body)).toEqual([SESSIONS.bourgMar14.id]);
    expect(ids((await get('?dept=2a')).body)).toEqual([SESSIONS.ajaccioMar13.id]);
    expect(ids((await get('?dept=974')).body)).toEqual([SESSIONS.reunionMar19.id]);
    expect(ids((await get('?dept=2B')).body)).toEqual([]);
  });

  it('filters by region, partial and accent-insensitive', async () => {
    expect(ids((await get('?region=ile-de-france&includeUnavailable=true')).body)).toEqual([
      SESSIONS.parisMar6Full.id,
      SESSIONS.parisMar12.id,
    ]);
    expect(ids((await get('?region=rhone')).body)).toEqual([
      SESSIONS.lyonMar5Early.id,
      SESSIONS.stEtienneMar5.id,
      SESSIONS.lyonMar5.id,
      SESSIONS.bourgMar14.id,
    ]);
    expect(ids((await get('?region=r%C3%A9union')).body)).toEqual([SESSIONS.reunionMar19.id]);
  });

  it('filters by date range, inclusive', async () => {
    expect(ids((await get('?from=2030-03-12&to=2030-03-13')).body)).toEqual([
      SESSIONS.parisMar12.id,
      SESSIONS.ajaccioMar13.id,
    ]);
    expect(ids((await get('?to=2030-03-05')).body)).toHaveLength(3);
  });

  it('filters by maximum price, inclusive and exact to the cent', async () => {
    expect(ids((await get('?maxPrice=199')).body)).toEqual([SESSIONS.stEtienneMar5.id, SESSIONS.bourgMar14.id]);
    expect(ids((await get('?maxPrice=279.5&from=2030-03-12&to=2030-03-12')).body)).toEqual([SESSIONS.parisMar12.id]);
    expect(ids((await get('?maxPrice=279.49&from=2030-03-12&to=2030-03-12')).body)).toEqual([]);
    expect(ids((await get('?maxPrice=229.99&includeUnavailable=true&from=2030-04-01')).body)).toEqual([
      SESSIONS.lyonApr2Full.id,
    ]);
  });

  it('combines filters', async () => {
    const { body } = await get('?region=auvergne&maxPrice=240&city=lyon');
    expect(ids(body)).toEqual([SESSIONS.lyonMar5.id]);
    expect(body.description).toMatch(/1 session /);
  });

  it('limits the number of sessions: default 20, at most 100', async () => {
    expect((await get('?limit=2')).body.count).toBe(2);
    expect(ids((await get('?limit=2')).body)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.stEtienneMar5.id]);
    expect((await get('?limit=100')).body.count).toBe(7);
  });

  it('ignores unknown query parameters', async () => {
    const { res, body } = await get('?foo=bar&limit=1');
    expect(res.statusCode).toBe(200);
    expect(body.count).toBe(1);
  });

  it.each([
    ['limit=0', 'limit', /1 to 100/],
    ['limit=101', 'limit', /1 to 100/],
    ['limit=abc', 'limit', /integer/],
    ['limit=2.5', 'limit', /integer/],
    ['from=2026-02-30', 'from', /real calendar date/],
    ['from=tomorrow', 'from', /YYYY-MM-DD/],
    ['to=2030-13-01', 'to', /real calendar date/],
    ['maxPrice=-1', 'maxPrice', /negative/],
    ['maxPrice=cheap', 'maxPrice', /number/],
    ['includeUnavailable=maybe', 'includeUnavailable', /true or false/],
    ['dept=999', 'dept', /unknown department code "999"/],
    ['dept=20', 'dept', /unknown department code/],
    ['limit=1&limit=2', 'limit', /integer/],
    [`city=${'x'.repeat(101)}`, 'city', /100 characters/],
  ])('rejects %s with a 400 problem naming %s', async (query, name, reason) => {
    const { res, body } = await get(`?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'invalid_parameters' });
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].name).toBe(name);
    expect(body.errors[0].reason).toMatch(reason);
    expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|stack|select /i);
  });

  it('rejects to before from, naming to', async () => {
    const { res, body } = await get('?from=2030-03-10&to=2030-03-09');
    expect(res.statusCode).toBe(400);
    expect(body.errors).toEqual([{ name: 'to', reason: 'to (2030-03-09) must not be before from (2030-03-10)' }]);
  });

  it('names every bad parameter at once', async () => {
    const { res, body } = await get('?limit=0&maxPrice=-5&dept=xx');
    expect(res.statusCode).toBe(400);
    expect(body.errors.map((e: { name: string }) => e.name).sort()).toEqual(['dept', 'limit', 'maxPrice']);
  });

  it('accepts boolean spellings 1/0 and true/false in any case', async () => {
    expect((await get('?includeUnavailable=TRUE')).body.count).toBe(9);
    expect((await get('?includeUnavailable=1')).body.count).toBe(9);
    expect((await get('?includeUnavailable=0')).body.count).toBe(7);
  });

  it('moves on with the day in Paris: the same query no longer lists the previous day', async () => {
    expect(ids((await get('?limit=1')).body)).toEqual([SESSIONS.lyonMar5Early.id]);
    clock.set('2030-03-04T23:30:00Z'); // 00:30 on 5 March in Paris: 5 March sessions are still today's
    expect(ids((await get('?limit=1')).body)).toEqual([SESSIONS.lyonMar5Early.id]);
    clock.set('2030-03-05T23:30:00Z'); // 00:30 on 6 March in Paris
    try {
      expect(ids((await get('?limit=1')).body)).toEqual([SESSIONS.parisMar12.id]);
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('treats an empty parameter as absent', async () => {
    const { res, body } = await get('?city=&limit=');
    expect(res.statusCode).toBe(200);
    expect(body.count).toBe(7);
  });
});
