import { getTableColumns, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../src/catalogue/read-model.js';
import { loadCatalogue, replaceCatalogue } from '../../src/catalogue/repository.js';
import { stageSessions } from '../../src/db/schema.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../helpers/fixtures.js';

// The read of the whole catalogue a start makes (loadCatalogue): each session as one text of its
// fields, page after page, the next page asked for while one is parsed.
describe('the whole catalogue read at a start', () => {
  let db: TestDatabase;
  // Course numbers the API refuses but a direct write can store: the separator of the row's
  // fields (U+001F) among them.
  const odd = ['A\x1fB', 'ends\x1f', '\x1f\x1fboth', '"quoted" \\ and \\n', 'line\nbreak\ttab', 'é€😀'];

  beforeAll(async () => {
    db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    // 2,500 more sessions: the read takes pages of 1,000, so three of them and a short one.
    await db.database.db.execute(sql`
      insert into stage_sessions (centre_id, course_number, day1, day2, start_time, end_time, price_cents, capacity, spots_available, status)
      select ${CENTRES.lyon.id}::uuid, 'N-' || n, date '2030-05-01' + (n % 90), date '2030-05-02' + (n % 90),
             case when n % 3 = 0 then '08:30' else '09:00' end, '17:00', 15000 + (n % 97) * 100, 20, n % 21,
             case when n % 50 = 0 then 'cancelled' else 'scheduled' end
      from generate_series(1, 2500) as n`);
    for (const [i, courseNumber] of odd.entries())
      await db.database.db.execute(
        sql`update stage_sessions set course_number = ${courseNumber} where course_number = ${`N-${i + 1}`}`,
      );
  });
  afterAll(() => db.dispose());

  it('gives every session as stored, field for field and typed, whatever its course number holds', async () => {
    const stored = await loadCatalogue(db.database.db);
    // The table's own columns as drizzle reads them, but those no session record carries.
    const { heldHere: _h, declaredOn: _d, createdAt: _c, updatedAt: _u, ...columns } = getTableColumns(stageSessions);
    const rows = await db.database.db.select(columns).from(stageSessions);
    expect(rows).toHaveLength(FIXTURE_CATALOGUE.sessions.length + 2500);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect([...stored.sessions].sort(byId)).toStrictEqual(rows.sort(byId) as SessionRecord[]);
    expect(
      stored.sessions
        .filter((s) => odd.includes(s.courseNumber))
        .map((s) => s.courseNumber)
        .sort(),
    ).toEqual([...odd].sort());
  });

  it('gives the sessions in the read model’s order: day, start time, price, id', async () => {
    const { sessions } = await loadCatalogue(db.database.db);
    const key = (s: SessionRecord) => [s.day1, s.startTime, String(s.priceCents).padStart(9, '0'), s.id];
    for (let i = 1; i < sessions.length; i++) {
      const [a, b] = [key(sessions[i - 1] as SessionRecord), key(sessions[i] as SessionRecord)];
      expect(a.join('|') < b.join('|'), `${a} before ${b}`).toBe(true);
    }
  });
});
