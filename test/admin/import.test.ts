import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportCatalogue } from '../../src/admin/import/export.js';
import { keysFor, NEW_CENTRE, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

const CENTRE_ID = '40000000-0000-4000-8000-000000000001';
const sessionId = (n: number) => `50000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const batch = {
  centres: [{ id: CENTRE_ID, ...NEW_CENTRE }],
  sessions: [
    { id: sessionId(1), ...newSession(CENTRE_ID, { courseNumber: 'IMP-1' }) },
    { id: sessionId(2), ...newSession(CENTRE_ID, { courseNumber: 'IMP-2', day1: '2030-03-26', spotsAvailable: 0 }) },
  ],
};

const post = (payload: string | object, query = '', headers: Record<string, string> = keys.admin, type?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/admin/import${query}`,
    headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
    payload: payload as string,
  });
const stored = async () =>
  (await t.app.inject({ url: '/api/admin/sessions?limit=1000', headers: keys.admin })).json().data.length;

describe('POST /api/admin/import', () => {
  it('validates only with dryRun, then creates, then finds everything unchanged', async () => {
    const before = await stored();
    const dry = await post(batch, '?dryRun=true');
    expect(dry.statusCode, dry.body).toBe(200);
    expect(dry.json()).toEqual({
      dryRun: true,
      centres: { created: 1, updated: 0, unchanged: 0 },
      sessions: { created: 2, updated: 0, unchanged: 0 },
    });
    expect(await stored()).toBe(before);

    const real = await post(batch);
    expect(real.json()).toMatchObject({ dryRun: false, sessions: { created: 2 } });
    expect(await stored()).toBe(before + 2);
    const found = (await t.app.inject('/api/stages?city=villeurbanne')).json().data.map((s: { id: string }) => s.id);
    expect(found).toEqual([sessionId(1)]);

    expect((await post(batch)).json()).toMatchObject({
      centres: { created: 0, updated: 0, unchanged: 1 },
      sessions: { created: 0, updated: 0, unchanged: 2 },
    });
    const changed = structuredClone(batch);
    (changed.sessions[1] as { spotsAvailable: number }).spotsAvailable = 4;
    expect((await post(changed)).json().sessions).toEqual({ created: 0, updated: 1, unchanged: 1 });
    expect((await t.app.inject('/api/stages?city=villeurbanne')).json().count).toBe(2);
  });

  it('refuses the whole batch when one record is bad, listing every bad record, and writes nothing', async () => {
    const before = await stored();
    const bad = {
      centres: [
        {
          id: '40000000-0000-4000-8000-000000000002',
          ...NEW_CENTRE,
          slug: 'autre-centre',
          agrementNumber: 'R2406900777',
          deptCode: '100',
        },
        { id: '40000000-0000-4000-8000-000000000003', ...NEW_CENTRE, agrementNumber: 'R2406900778' },
      ],
      sessions: [
        { id: sessionId(10), ...newSession(CENTRE_ID, { courseNumber: 'IMP-10' }) },
        { id: 'not-a-uuid', ...newSession(CENTRE_ID, { courseNumber: 'IMP-11' }) },
        { id: sessionId(12), ...newSession('40000000-0000-4000-8000-00000000ffff', { courseNumber: 'IMP-12' }) },
        { id: sessionId(13), ...newSession(CENTRE_ID, { courseNumber: 'IMP-1', spotsAvailable: 30 }) },
        { id: sessionId(10), ...newSession(CENTRE_ID, { courseNumber: 'IMP-14' }) },
        { id: sessionId(15), ...newSession(CENTRE_ID, { courseNumber: 'IMP-2' }) },
      ],
    };
    const res = await post(bad);
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body.code).toBe('invalid_records');
    const issues = body.errors as { index: number; id?: string; name: string; reason: string }[];
    const at = (index: number) => issues.filter((i) => i.index === index).map((i) => i.name);
    expect(at(0)).toContain('deptCode');
    expect(at(1)).toEqual(['slug']); // the slug of the centre stored by the first test
    expect(at(2)).toEqual([]); // valid
    expect(at(3)).toEqual(['id']);
    expect(at(4)).toEqual(['centreId']);
    expect(at(5)).toEqual(['spotsAvailable']);
    expect(at(6)).toEqual(['id']);
    expect(at(7)).toEqual(['courseNumber']); // held by a stored session
    expect(issues.find((i) => i.index === 7)?.reason).toContain(sessionId(2));
    expect(issues.find((i) => i.index === 4)?.id).toBe(sessionId(12));
    expect(body.detail).toContain('7 of 8 record(s) are invalid; nothing was written');
    expect(await stored()).toBe(before);
    expect((await t.app.inject({ url: `/api/admin/sessions/${sessionId(10)}`, headers: keys.admin })).statusCode).toBe(
      404,
    );
  });

  it('reads NDJSON and CSV, and says which line of a malformed file is wrong', async () => {
    const ndjson = [
      JSON.stringify({ type: 'session', id: sessionId(20), ...newSession(CENTRE_ID, { courseNumber: 'ND-20' }) }),
      '',
      JSON.stringify({
        type: 'session',
        id: sessionId(21),
        ...newSession(CENTRE_ID, { courseNumber: 'ND-21', day1: '2030-04-02' }),
      }),
    ].join('\n');
    const res = await post(ndjson, '', keys.admin, 'application/x-ndjson');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().sessions.created).toBe(2);

    const broken = await post(`${ndjson}\n{"type": "session",`, '', keys.admin, 'application/x-ndjson');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().errors).toEqual([expect.objectContaining({ line: 4, name: '(line)' })]);

    const csv = [
      'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable,status',
      `session,${sessionId(30)},${CENTRE_ID},CSV-30,2030-04-09,09:00,17:00,199.90,16,16,scheduled`,
      `session,${sessionId(31)},${CENTRE_ID},CSV-31,2030-04-14,09:00,17:00,199.90,16,16,scheduled`,
    ].join('\n');
    const csvBad = await post(csv, '', keys.admin, 'text/csv');
    expect(csvBad.statusCode).toBe(422);
    expect(csvBad.json().errors).toEqual([
      expect.objectContaining({ index: 1, line: 3, name: 'day1', reason: expect.stringContaining('Sunday') }),
    ]);
    const csvGood = await post(csv.replace('2030-04-14', '2030-04-16'), '', keys.admin, 'text/csv');
    expect(csvGood.statusCode, csvGood.body).toBe(200);
    expect(csvGood.json().sessions.created).toBe(2);
    const one = (await t.app.inject({ url: `/api/admin/sessions/${sessionId(30)}`, headers: keys.admin })).json();
    expect(one).toMatchObject({ priceEuros: 199.9, day2: '2030-04-10', capacity: 16 });
  });

  it('lets a partner import its own sessions only', async () => {
    const res = await post(
      {
        centres: [
          { id: '40000000-0000-4000-8000-000000000009', ...NEW_CENTRE, slug: 'p', agrementNumber: 'R2406900999' },
        ],
        sessions: [
          { id: sessionId(40), ...newSession(CENTRES.lyon.id, { courseNumber: 'P-40' }) },
          { id: sessionId(41), ...newSession(CENTRES.paris.id, { courseNumber: 'P-41' }) },
          { id: SESSIONS.parisMar12.id, ...newSession(CENTRES.lyon.id, { courseNumber: 'P-42' }) },
        ],
      },
      '',
      keys.partner,
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().errors.map((e: { index: number; name: string }) => [e.index, e.name])).toEqual([
      [0, 'type'],
      [2, 'centreId'],
      [3, 'id'],
    ]);
  });

  it('refuses what is not an import: not JSON, unknown shape, wrong content type', async () => {
    expect((await post('{"centres": 3}', '', keys.admin, 'application/json')).statusCode).toBe(400);
    expect((await post('<xml/>', '', keys.admin, 'application/xml')).statusCode).toBe(415);
    expect((await post('{', '', keys.admin, 'application/json')).statusCode).toBe(400);
  });

  it('exports what it imports: exporting then importing changes nothing', async () => {
    for (const format of ['json', 'ndjson', 'csv'] as const) {
      const file = await exportCatalogue(t.app.database.db, format);
      const type = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv' }[format];
      const res = await post(file, '', keys.admin, type);
      expect(res.statusCode, `${format}: ${res.body.slice(0, 500)}`).toBe(200);
      const body = res.json();
      expect(body.centres.created + body.centres.updated, format).toBe(0);
      expect(body.sessions.created + body.sessions.updated, format).toBe(0);
      expect(body.sessions.unchanged).toBeGreaterThan(10);
    }
  });
});
