/**
 * npx tsx bench/micro/history-import.ts — what the change history costs a large import.
 *
 * On a fresh embedded database: one centre, then 5,000 new sessions imported (every field of each
 * recorded), then the same 5,000 with a new price (one entry each), then the same again (unchanged:
 * nothing written, no entry). Prints each import's time and the history rows it wrote. Run it on a
 * commit before the history to compare (the import's options then ignore `actor`).
 */
import { importBatch } from '../../src/admin/import/write.js';
import { publicHolidays } from '../../src/catalogue/demo/holidays.js';
import { addDays, systemClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/db/connect.js';

const SESSIONS = Number(process.env.HISTORY_SESSIONS ?? 5000);
const database = await openDatabase({ kind: 'pglite', dataDir: 'memory://' });
await database.migrate();
const db = database.db;
const centreId = '00000000-0000-4000-8000-00000000c001';
const centre = {
  id: centreId,
  slug: 'bench-lyon',
  name: 'Bench Lyon',
  address: '1 rue de la République',
  city: 'Lyon',
  postalCode: '69001',
  deptCode: '69',
  lat: 45.76,
  lng: 4.83,
  agrementNumber: 'R2406900999',
};
const actor = { kind: 'cli', id: null, label: 'bench' } as const;
const options = { dryRun: false, clock: systemClock, actor };
await importBatch(db, [{ index: 0, type: 'centre', data: centre }], { centreId: null }, options);

// Tuesdays from 2031 on, five sessions each, skipping the weeks a public holiday falls on either day.
const days: string[] = [];
const holiday = (day: string) => publicHolidays(Number(day.slice(0, 4))).has(day);
for (let d = new Date('2031-01-07T00:00:00Z'); days.length < SESSIONS; d.setUTCDate(d.getUTCDate() + 7)) {
  const day1 = d.toISOString().slice(0, 10);
  if (holiday(day1) || holiday(addDays(day1, 1))) continue;
  for (let k = 0; k < 5 && days.length < SESSIONS; k++) days.push(day1);
}
const records = (price: number) =>
  days.map((day1, i) => ({
    index: i,
    type: 'session',
    data: {
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      centreId,
      courseNumber: `BENCH-${i}`,
      day1,
      startTime: '08:30',
      endTime: '16:30',
      priceEuros: price,
      capacity: 20,
      spotsAvailable: 12,
    },
  }));

const count = async () =>
  Number(
    ((await db.execute('select count(*)::int as n from change_history')) as { rows: { n: number }[] }).rows[0]?.n ?? 0,
  );

for (const [what, price] of [
  ['created', 229],
  ['price changed', 239],
  ['unchanged', 239],
] as const) {
  const before = await count().catch(() => 0);
  const start = performance.now();
  const result = await importBatch(db, records(price), { centreId: null }, options);
  const ms = performance.now() - start;
  const rows = (await count().catch(() => 0)) - before;
  console.log(
    `${SESSIONS} sessions ${what}: ${ms.toFixed(0)} ms (created ${result.sessions.created}, updated ${result.sessions.updated}, unchanged ${result.sessions.unchanged}); history rows ${rows}`,
  );
}
await database.close();
