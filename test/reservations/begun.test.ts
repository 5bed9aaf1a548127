import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CentreRecord } from '../../src/catalogue/read-model.js';
import { startInstant } from '../../src/core/clock.js';
import { bookPlace } from '../../src/reservations/repository.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { CENTRES } from '../helpers/fixtures.js';

/*
 * The booking's own check, on the database's clock: day1 + start_time at the centre's zone must be
 * after now(). The sessions start a few minutes before or after the real now, in three zones.
 */

const cayenne: CentreRecord = {
  ...CENTRES.reunion,
  id: '00000000-0000-4000-8000-000000000973',
  slug: 'centre-cayenne',
  city: 'Cayenne',
  postalCode: '97300',
  deptCode: '973',
  agrementNumber: 'R2297300007',
};
const ZONES = [
  { centre: CENTRES.paris, zone: 'Europe/Paris' },
  { centre: CENTRES.reunion, zone: 'Indian/Reunion' },
  { centre: cayenne, zone: 'America/Cayenne' },
];

/** The local day and HH:MM of an instant in a zone. */
function local(ms: number, timeZone: string): { day: string; time: string } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  }).formatToParts(ms);
  const p = (type: string) => parts.find((x) => x.type === type)?.value ?? '';
  return { day: `${p('year')}-${p('month')}-${p('day')}`, time: `${p('hour')}:${p('minute')}` };
}

let t: TestApp;
const ids: Record<string, string> = {};
beforeAll(async () => {
  const now = Date.now();
  const sessions = ZONES.flatMap(({ centre, zone }, z) =>
    [
      ['begun', now - 10 * 60_000],
      ['soon', now + 10 * 60_000],
    ].map(([kind, ms], k) => {
      const { day, time } = local(ms as number, zone);
      const id = `30000000-0000-4000-8000-00000000000${2 * z + k}`;
      ids[`${zone} ${kind}`] = id;
      const next = new Date(`${day}T00:00:00Z`);
      next.setUTCDate(next.getUTCDate() + 1);
      return {
        id,
        centreId: centre.id,
        courseNumber: `D-${2 * z + k}`,
        day1: day,
        day2: next.toISOString().slice(0, 10),
        startTime: time,
        endTime: '23:59',
        priceCents: 20000,
        capacity: 10,
        spotsAvailable: 5,
      };
    }),
  );
  t = await buildTestApp({ catalogue: { centres: [CENTRES.paris, CENTRES.reunion, cayenne], sessions } });
});
afterAll(() => t?.close());

const book = (sessionId: string, n: number) =>
  bookPlace(t.app.database.db, {
    sessionId,
    browser: `browser-${n}`,
    now: new Date(),
    details: {
      reason: 'voluntary',
      firstName: 'Ana',
      lastName: 'Lima',
      email: `ana${n}@example.org`,
      phone: '+33612345678',
    },
  });

describe('the booking transaction, at the service clock', () => {
  it.each(ZONES)(
    'refuses as closed a session begun in $zone (the date there is its day1), takes one not begun',
    async ({ zone }) => {
      expect((await book(ids[`${zone} begun`] as string, 1)).kind).toBe('closed');
      expect((await book(ids[`${zone} soon`] as string, 2)).kind).toBe('booked');
    },
  );

  it('reads day1 + start_time in each zone as the read model does, summer-time nights included', async () => {
    const days = ['2030-03-31', '2030-10-27', '2030-07-08', '2030-01-15'];
    const times = ['00:00', '01:30', '02:00', '02:30', '03:00', '08:30', '23:59', '25:30'];
    for (const zone of [
      'Europe/Paris',
      'America/Guadeloupe',
      'America/Martinique',
      'America/Cayenne',
      'Indian/Reunion',
      'Indian/Mayotte',
    ])
      for (const day of days)
        for (const time of times) {
          const rows = await t.app.database.db.execute(
            sql`select extract(epoch from ((${day}::date + ${time}::interval) at time zone ${zone}::text))::float8 * 1000 as ms`,
          );
          const list = (rows as unknown as { rows?: { ms: number }[] }).rows ?? (rows as unknown as { ms: number }[]);
          expect(startInstant(day, time, zone), `${zone} ${day} ${time}`).toBe(Number(list[0]?.ms));
        }
  });
});
