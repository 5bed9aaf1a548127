import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { attendance, reservations } from '../../src/db/schema.js';
import { purgePersonalData } from '../../src/reservations/repository.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The personal-data purge never erases a course's attendance before the centre exported the list
 * of those who attended (the attestations to the prefecture); after the export it erases as before.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
const marked = SESSIONS.stEtienneMar5.id; // attendance marked in the area
const unmarked = SESSIONS.lyonMar5.id; // nobody marked anything
const base = `/espace-centre/seances/${marked}`;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  for (const [session, firstName, email] of [
    [marked, 'Éloïse', PERSON.email],
    [marked, 'Marc', 'marc.durand@example.org'],
    [unmarked, 'Léa', 'lea@example.org'],
  ] as const) {
    const form = await openForm(t.app, `/stages/${session}`);
    expect((await submit(t.app, session, form, { ...PERSON, firstName, email })).statusCode).toBe(303);
  }
  const ids = (
    await t.app.database.db.select({ id: reservations.id }).from(reservations).where(eq(reservations.sessionId, marked))
  ).map((r) => r.id);
  for (const [at, halfDays] of [
    ['2030-03-05T07:45:00Z', ['1', '2']],
    ['2030-03-06T07:45:00Z', ['3', '4']],
  ] as const) {
    clock.set(at);
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    for (const demi_journee of halfDays) {
      const page = await staff.get(`${base}/presences`);
      const res = await staff.post(`${base}/presences`, {
        _csrf: Browser.token(page.body),
        demi_journee,
        present: ids,
      });
      expect(res.statusCode).toBe(303);
    }
  }
});
afterAll(() => t.close());

const names = async (session: string) =>
  (
    await t.app.database.db
      .select({ firstName: reservations.firstName })
      .from(reservations)
      .where(eq(reservations.sessionId, session))
  )
    .map((r) => r.firstName)
    .sort();

const marks = async () => {
  const ids = (
    await t.app.database.db.select({ id: reservations.id }).from(reservations).where(eq(reservations.sessionId, marked))
  ).map((r) => r.id);
  return (await t.app.database.db.select().from(attendance).where(inArray(attendance.reservationId, ids))).length;
};

describe('the purge and the attendance', () => {
  it('keeps the names of a course whose attendance list was not exported, and erases them once it was', async () => {
    clock.set('2030-04-02T09:00:00Z');
    const first = await purgePersonalData(t.app.database.db, '2030-04-01');
    expect(first).toMatchObject({ reservations: 1, keptForAttendance: 2 });
    expect(await names(unmarked)).toEqual([null]); // nothing marked: erased as before
    expect(await names(marked)).toEqual(['Marc', 'Éloïse']);
    expect(await marks()).toBe(8);

    // The centre can still make its list, and exports it.
    const staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const page = await staff.get(`${base}/attestations`);
    expect(page.body).toContain('N’DIAYE-MARTIN Marc');
    const file = await staff.get(`${base}/attestations.csv`);
    expect(file.statusCode).toBe(200);
    expect(file.body).toContain('N’Diaye-Martin;Marc;');

    const second = await purgePersonalData(t.app.database.db, '2030-04-01');
    expect(second).toMatchObject({ reservations: 2, keptForAttendance: 0 });
    expect(await names(marked)).toEqual([null, null]);
    // The marks stay as anonymous counts; the names are gone from every page.
    expect(await marks()).toBe(8);
    const after = await staff.get(`${base}/attestations`);
    expect(after.body).not.toContain('Marc');
    expect(after.body).toContain('Données effacées');
  });
});
