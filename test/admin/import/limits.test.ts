import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor, newSession } from '../../helpers/admin-keys.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../../helpers/fixtures.js';

/*
 * What bounds an import: IMPORT_MAX_RECORDS in every format, at most 100 issues listed with the
 * count of them all, and no record longer than 64 KB. The apps differ only in their settings and
 * none writes: they share one database.
 */

let database: TestDatabase;
let admin: Record<string, string>;
const apps: TestApp[] = [];
beforeAll(async () => {
  database = await openTestDatabase();
  const first = await app();
  admin = (await keysFor(first.app, CENTRES.lyon.id)).admin;
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await database.dispose();
});

async function app(env: Record<string, string> = {}): Promise<TestApp> {
  const built = await buildTestApp({ database, catalogue: apps.length ? undefined : FIXTURE_CATALOGUE, env });
  apps.push(built);
  return built;
}

const TYPES = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv' } as const;
const post = (t: TestApp, payload: string, type: keyof typeof TYPES, query = '?dryRun=true') =>
  t.app.inject({
    method: 'POST',
    url: `/api/admin/import${query}`,
    headers: { ...admin, 'content-type': TYPES[type] },
    payload,
  });

const sessionId = (n: number) => `52000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const session = (n: number) => ({
  id: sessionId(n),
  ...newSession(CENTRES.lyon.id, { courseNumber: `LIM-${n}`, day1: '2030-03-19' }),
});

/** `n` valid sessions in each format. */
const files = (n: number): Record<keyof typeof TYPES | 'jsonArray', string> => {
  const sessions = Array.from({ length: n }, (_, i) => session(i));
  const columns = Object.keys(sessions[0] ?? {});
  return {
    json: JSON.stringify({ centres: [], sessions }),
    jsonArray: JSON.stringify(sessions.map((s) => ({ type: 'session', ...s }))),
    ndjson: sessions.map((s) => JSON.stringify({ type: 'session', ...s })).join('\n'),
    csv: [['type', ...columns].join(','), ...sessions.map((s) => ['session', ...Object.values(s)].join(','))].join(
      '\n',
    ),
  };
};

describe('IMPORT_MAX_RECORDS', () => {
  it('refuses a batch over the limit in every format with 413 naming it, and takes one at the limit', async () => {
    const t = await app({ IMPORT_MAX_RECORDS: '5' });
    const over = files(6);
    const at = files(5);
    for (const [format, type] of [
      ['json', 'json'],
      ['jsonArray', 'json'],
      ['ndjson', 'ndjson'],
      ['csv', 'csv'],
    ] as const) {
      const refused = await post(t, over[format], type);
      expect(refused.statusCode, `${format}: ${refused.body}`).toBe(413);
      expect(refused.json(), format).toMatchObject({
        code: 'too_many_records',
        detail: expect.stringContaining('more than 5 records, the most one import takes (IMPORT_MAX_RECORDS)'),
      });
      const taken = await post(t, at[format], type);
      expect(taken.statusCode, `${format}: ${taken.body}`).toBe(200);
      expect(taken.json().sessions.created, format).toBe(5);
    }
  });

  it('counts the records of both arrays of a JSON import together', async () => {
    const t = await app({ IMPORT_MAX_RECORDS: '2' });
    const body = JSON.stringify({ sessions: [session(1), session(2)], centres: [{}] });
    expect((await post(t, body, 'json')).json().code).toBe('too_many_records');
  });
});

describe('the issues of a refused batch', () => {
  it('lists the first 100 of 200,000 bad NDJSON lines, with their count, in a small answer', async () => {
    const body = 'x\n'.repeat(200_000);
    // Under the default limit (50,000), so many lines are refused at line 50,001.
    const limited = await post(apps[0] as TestApp, body, 'ndjson');
    expect(limited.statusCode).toBe(413);
    expect(limited.json().code).toBe('too_many_records');

    const res = await post(await app({ IMPORT_MAX_RECORDS: '200000' }), body, 'ndjson');
    expect(res.statusCode).toBe(400);
    const problem = res.json();
    expect(problem).toMatchObject({
      code: 'malformed_import',
      detail: '200000 line(s) of the NDJSON are not JSON objects.',
      errorCount: 200_000,
      truncated: true,
    });
    expect(problem.errors).toHaveLength(100);
    expect(problem.errors[99]).toEqual({ name: '(line)', reason: 'is not a JSON object', index: 99, line: 100 });
    expect(res.body.length).toBeLessThan(10_000);
  });

  it('lists the first 100 issues of invalid records in record order, and counts them all', async () => {
    const records = Array.from({ length: 1000 }, (_, i) =>
      i % 2 ? { type: 'thing' } : { type: 'session', ...session(i) },
    );
    // An id given twice: an issue of the batch checks, found after those of the records before it.
    records[4] = { type: 'session', ...session(2) };
    const res = await post(apps[0] as TestApp, JSON.stringify(records), 'json');
    expect(res.statusCode).toBe(422);
    const problem = res.json();
    expect(problem).toMatchObject({ code: 'invalid_records', errorCount: 501, truncated: true });
    expect(problem.detail).toBe(
      '501 of 1000 record(s) are invalid; nothing was written. The first 100 of 501 issues are listed.',
    );
    const indexes = problem.errors.map((e: { index: number }) => e.index);
    expect(indexes).toHaveLength(100);
    expect(indexes.slice(0, 4)).toEqual([1, 3, 4, 5]);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
  });

  it('says how many there are when all are listed', async () => {
    const res = await post(apps[0] as TestApp, JSON.stringify([{ type: 'thing' }]), 'json');
    expect(res.json()).toMatchObject({ status: 422, errorCount: 1, truncated: false });
  });
});

describe('a record longer than any valid one', () => {
  it('is refused unread in every format', async () => {
    const long = 'a'.repeat(70_000);
    const bodies = {
      json: JSON.stringify([{ type: 'centre', name: long }]),
      ndjson: JSON.stringify({ type: 'centre', name: long }),
      csv: `type,name\ncentre,${long}`,
    } as const;
    for (const format of ['json', 'ndjson', 'csv'] as const) {
      const res = await post(apps[0] as TestApp, bodies[format], format);
      expect(res.statusCode, format).toBe(400);
      expect(res.json().code, format).toBe('malformed_import');
    }
    const json = await post(apps[0] as TestApp, bodies.json, 'json');
    expect(json.json().detail).toBe('Record 0 is longer than 65536 characters; no valid centre or session is.');
  });
});
