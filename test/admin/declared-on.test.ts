import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exportCatalogue } from '../../src/admin/import/export.js';
import { keysFor, newSession } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * declaredOn and the prefecture rule: a course is declared at least 10 calendar days before day1.
 * The clock is frozen on Monday 4 March 2030, 10:00 in Paris: a session on Tuesday 12 March starts in
 * 8 days (declared by 2 March at the latest), one on Thursday 14 March in 10 (the rule no longer applies).
 */

let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
const clock = frozenClock(FIXTURE_NOW);

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());
beforeEach(() => clock.set(FIXTURE_NOW));

const json = (res: { body: string }) => JSON.parse(res.body);
let serial = 0;
/** A fresh session id and course number for each write. */
function fresh(centreId: string, fields: Record<string, unknown>) {
  serial++;
  const id = `40000000-0000-4000-8000-${String(serial).padStart(12, '0')}`;
  return { id, body: newSession(centreId, { courseNumber: `DECL-${serial}`, ...fields }) };
}
const put = (id: string, body: unknown, headers = keys.partner) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/sessions/${id}`, headers, payload: body as object });
const patch = (id: string, body: unknown) =>
  t.app.inject({ method: 'PATCH', url: `/api/admin/sessions/${id}`, headers: keys.partner, payload: body as object });
const read = (id: string) => t.app.inject({ url: `/api/admin/sessions/${id}`, headers: keys.admin });
const importBody = (payload: string, contentType: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/admin/import',
    headers: { ...keys.admin, 'content-type': contentType },
    payload,
  });

describe('the 10-day prefecture rule on PUT and PATCH', () => {
  it('refuses a session starting in 8 days without declaredOn, with a 422 naming the field and the rule, and writes nothing', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-12' });
    const res = await put(id, body);
    expect(res.statusCode).toBe(422);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const problem = json(res);
    expect(problem.code).toBe('prefecture_declaration');
    expect(problem.errors).toHaveLength(1);
    expect(problem.errors[0].name).toBe('declaredOn');
    expect(problem.errors[0].reason).toContain('declared to the prefecture at least 10 calendar days before');
    expect(problem.errors[0].reason).toContain('on or before 2030-03-02');
    expect(problem.detail).toContain('arrêté du 31 mai 2024');
    expect((await read(id)).statusCode).toBe(404);
  });

  it('refuses a declaration fewer than 10 days before day1, and takes one 10 days before', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-12' });
    const late = await put(id, { ...body, declaredOn: '2030-03-03' });
    expect(late.statusCode).toBe(422);
    expect(json(late).errors[0]).toMatchObject({ name: 'declaredOn' });
    expect(json(late).errors[0].reason).toContain('on or before 2030-03-02');

    const ok = await put(id, { ...body, declaredOn: '2030-03-02' });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(json(ok).declaredOn).toBe('2030-03-02');
    expect(json(await read(id)).declaredOn).toBe('2030-03-02');
  });

  it('asks nothing of a session 10 days or more ahead, and answers declaredOn null', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-14' });
    const res = await put(id, body);
    expect(res.statusCode, res.body).toBe(201);
    expect(json(res).declaredOn).toBeNull();
  });

  it('refuses declaredOn in the future (422) or after day1 (400)', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-19' });
    const future = await put(id, { ...body, declaredOn: '2030-03-05' });
    expect(future.statusCode).toBe(422);
    expect(json(future).errors[0].name).toBe('declaredOn');
    expect(json(future).errors[0].reason).toContain('in the future');

    const after = await put(id, { ...body, declaredOn: '2030-03-20' });
    expect(after.statusCode).toBe(400);
    expect(json(after).errors.map((e: { name: string }) => e.name)).toEqual(['declaredOn']);
    expect(json(after).errors[0].reason).toContain('on or before day1 (2030-03-19)');

    const notADate = await put(id, { ...body, declaredOn: '2030-02-30' });
    expect(notADate.statusCode).toBe(400);
    expect(json(notADate).errors[0].name).toBe('declaredOn');
    expect((await read(id)).statusCode).toBe(404);
  });

  it('refuses moving a session into the last 10 days undeclared', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-19' });
    expect((await put(id, body)).statusCode).toBe(201);
    const moved = await put(id, { ...body, day1: '2030-03-12' });
    expect(moved.statusCode).toBe(422);
    expect(json(moved).code).toBe('prefecture_declaration');
    expect(json(await read(id)).day1).toBe('2030-03-19');
  });

  it('lets a centre change the places and price of a stored session in its last days, declared or not', async () => {
    // SESSIONS.lyonMar5 starts tomorrow and was stored without declaredOn.
    const res = await patch(SESSIONS.lyonMar5.id, { priceEuros: 199, spotsAvailable: 3 });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ priceEuros: 199, declaredOn: null });
    const { updatedAt: _, heldHere: __, id: ___, ...stored } = json(res);
    // A GET-then-PUT of the same session is not refused either.
    const again = await put(SESSIONS.lyonMar5.id, { ...stored, priceEuros: 189 });
    expect(again.statusCode, again.body).toBe(200);
  });

  it('PATCH sets, checks and removes declaredOn under the same rule', async () => {
    const { id, body } = fresh(CENTRES.lyon.id, { day1: '2030-03-12', declaredOn: '2030-02-20' });
    expect((await put(id, body)).statusCode).toBe(201);
    const late = await patch(id, { declaredOn: '2030-03-04' });
    expect(late.statusCode).toBe(422);
    expect(json(late).errors[0].reason).toContain('on or before 2030-03-02');
    const removed = await patch(id, { declaredOn: null });
    expect(removed.statusCode).toBe(422);
    expect(json(removed).errors[0].reason).toContain('declaredOn is required');
    const earlier = await patch(id, { declaredOn: '2030-02-18' });
    expect(earlier.statusCode, earlier.body).toBe(200);
    expect(json(earlier).declaredOn).toBe('2030-02-18');

    const far = fresh(CENTRES.lyon.id, { day1: '2030-03-26' });
    expect((await put(far.id, far.body)).statusCode).toBe(201);
    const set = await patch(far.id, { declaredOn: '2030-03-01' });
    expect(set.statusCode).toBe(200);
    expect(json(set).declaredOn).toBe('2030-03-01');
    expect(json(await patch(far.id, { declaredOn: null })).declaredOn).toBeNull();
  });

  it("counts the days in the centre's own zone", async () => {
    // 21:00 UTC on Sunday 3 March: still the 3rd in Lyon (22:00), already the 4th in Réunion (01:00).
    clock.set('2030-03-03T21:00:00Z');
    const admin = keys.admin;
    const lyon = fresh(CENTRES.lyon.id, { day1: '2030-03-13' });
    expect((await put(lyon.id, lyon.body, admin)).statusCode).toBe(201); // 10 days ahead in Lyon
    const reunion = fresh(CENTRES.reunion.id, { day1: '2030-03-13' });
    const res = await put(reunion.id, reunion.body, admin); // 9 days ahead in Réunion
    expect(res.statusCode).toBe(422);
    expect(json(res).errors[0].reason).toContain('in 9 day(s)');
  });
});

describe('the rule in imports', () => {
  it('refuses a JSON or NDJSON batch holding an undeclared session in its last 10 days, naming the record and the field', async () => {
    const ok = fresh(CENTRES.lyon.id, { day1: '2030-03-26' });
    const late = fresh(CENTRES.lyon.id, { day1: '2030-03-12', declaredOn: '2030-03-04' });
    const res = await importBody(
      JSON.stringify({
        sessions: [
          { id: ok.id, ...ok.body },
          { id: late.id, ...late.body },
        ],
      }),
      'application/json',
    );
    expect(res.statusCode).toBe(422);
    expect(json(res).errors).toEqual([
      expect.objectContaining({
        index: 1,
        id: late.id,
        name: 'declaredOn',
        reason: expect.stringContaining('prefecture'),
      }),
    ]);
    expect((await read(ok.id)).statusCode).toBe(404);

    const missing = fresh(CENTRES.lyon.id, { day1: '2030-03-12' });
    const ndjson = await importBody(
      `${JSON.stringify({ type: 'session', id: missing.id, ...missing.body })}\n`,
      'application/x-ndjson',
    );
    expect(ndjson.statusCode).toBe(422);
    expect(json(ndjson).errors[0]).toMatchObject({ line: 1, name: 'declaredOn' });
  });

  it('takes declaredOn from a CSV column', async () => {
    const s = fresh(CENTRES.lyon.id, { day1: '2030-03-12' });
    const header = 'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable,declaredOn';
    const row = (declaredOn: string) =>
      `session,${s.id},${CENTRES.lyon.id},${s.body.courseNumber},2030-03-12,08:30,16:30,229.5,20,12,${declaredOn}`;
    const refused = await importBody(`${header}\n${row('')}\n`, 'text/csv');
    expect(refused.statusCode).toBe(422);
    expect(json(refused).errors[0]).toMatchObject({ line: 2, name: 'declaredOn' });
    const taken = await importBody(`${header}\n${row('2030-02-28')}\n`, 'text/csv');
    expect(taken.statusCode, taken.body).toBe(200);
    expect(json(await read(s.id)).declaredOn).toBe('2030-02-28');
  });

  it('exports declaredOn in JSON, NDJSON and CSV, and an export imported back changes nothing, even days later', async () => {
    const s = fresh(CENTRES.lyon.id, { day1: '2030-03-12', declaredOn: '2030-02-27' });
    expect((await put(s.id, s.body)).statusCode).toBe(201);
    const db = t.app.database.db;
    const exported = {
      json: await exportCatalogue(db, 'json'),
      ndjson: await exportCatalogue(db, 'ndjson'),
      csv: await exportCatalogue(db, 'csv'),
    };
    const sessions = JSON.parse(exported.json).sessions as { id: string; declaredOn?: string }[];
    expect(sessions.find((x) => x.id === s.id)?.declaredOn).toBe('2030-02-27');
    // Sessions stored undeclared in their last days (lyonMar5) are exported without the field.
    expect(sessions.find((x) => x.id === SESSIONS.lyonMar5.id)).not.toHaveProperty('declaredOn');
    expect(exported.csv.split('\n')[0]).toContain('declaredOn');
    expect(exported.csv).toContain(',2030-02-27');

    clock.set('2030-03-09T09:00:00Z');
    for (const [format, type] of [
      ['json', 'application/json'],
      ['ndjson', 'application/x-ndjson'],
      ['csv', 'text/csv'],
    ] as const) {
      const res = await importBody(exported[format], type);
      expect(res.statusCode, `${format}: ${res.body.slice(0, 500)}`).toBe(200);
      expect(json(res).sessions.created + json(res).sessions.updated, format).toBe(0);
    }
    expect(json(await read(s.id)).declaredOn).toBe('2030-02-27');
  });
});

describe('declaredOn is private', () => {
  it('appears in no public answer: /api/stages, /api/stages/{id}, check_availability, the session page', async () => {
    const s = fresh(CENTRES.lyon.id, { day1: '2030-03-12', declaredOn: '2030-02-26' });
    expect((await put(s.id, s.body)).statusCode).toBe(201);
    const list = await t.app.inject('/api/stages?dept=69&includeUnavailable=true&limit=100');
    expect(json(list).data.map((x: { id: string }) => x.id)).toContain(s.id);
    const one = await t.app.inject(`/api/stages/${s.id}`);
    expect(one.statusCode).toBe(200);
    const mcp = await t.app.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'check_availability', arguments: { sessionId: s.id } },
      },
    });
    expect(json(mcp).result.structuredContent).toMatchObject({ status: 'available', spotsAvailable: 12 });
    const page = await t.app.inject(`/stages/${s.id}`);
    expect(page.statusCode).toBe(200);
    for (const res of [list, one, mcp, page]) {
      expect(res.body).not.toMatch(/declared/i);
      expect(res.body).not.toContain('2030-02-26');
    }
  });
});
