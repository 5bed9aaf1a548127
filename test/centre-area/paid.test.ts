import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* Marking a booking paid (and taking the mark back) from the centre's area, recorded as the user's. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
let owner: Browser;
let reservationId: string;
const id = SESSIONS.stEtienneMar5.id;
const path = `/espace-centre/seances/${id}`;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
  const form = await openForm(t.app, `/stages/${id}`);
  expect((await submit(t.app, id, form, PERSON)).statusCode).toBe(303);
  reservationId = /id="reservation-([0-9a-f-]{36})"/.exec((await staff.get(path)).body)?.[1] as string;
});
afterAll(() => t.close());

async function mark(browser: Browser, action: string, token?: string, target = reservationId) {
  const page = await browser.get(path);
  return browser.post(`/espace-centre/reservations/${target}/paiement`, {
    _csrf: token ?? Browser.token(page.body),
    action,
  });
}

/** The history's entries of the reservation's payment, oldest first, as the centre's API key reads them. */
async function paidHistory() {
  const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
  const res = await t.app.inject({ url: `/api/admin/history?entityId=${reservationId}`, headers: partner });
  expect(res.statusCode).toBe(200);
  return (
    res.json().data as { field: string; oldValue: string; newValue: string; actor: { kind: string; label: string } }[]
  )
    .filter((e) => e.field === 'paid')
    .reverse();
}

describe('marking a booking paid', () => {
  it('is recorded with its time, shown on the page, and in the history as the staff member’s; undone the same way', async () => {
    expect((await staff.get(path)).body).toContain('non payée');
    const res = await mark(staff, 'paye');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${path}?fait=paye`);
    const page = await staff.get(`${path}?fait=paye`);
    expect(page.body).toContain('Réservation marquée payée.');
    expect(page.body).toContain('payée (marquée le lundi 4 mars 2030)');
    expect(page.body).toContain('Marquer non payée');
    expect(await paidHistory()).toEqual([
      expect.objectContaining({
        oldValue: 'no',
        newValue: 'yes',
        actor: expect.objectContaining({ kind: 'user', label: 'equipe@centre-st-etienne.example' }),
      }),
    ]);

    // Marking it paid again changes nothing and records nothing.
    expect((await mark(staff, 'paye')).statusCode).toBe(303);
    expect(await paidHistory()).toHaveLength(1);

    // The owner takes the mark back.
    expect((await mark(owner, 'impaye')).statusCode).toBe(303);
    expect((await owner.get(path)).body).toContain('· non payée');
    const history = await paidHistory();
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({
      oldValue: 'yes',
      newValue: 'no',
      actor: { label: 'gerant@centre-st-etienne.example' },
    });
  });

  it('refuses an unknown action with the page and a message', async () => {
    const res = await mark(staff, 'gratuit');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Marquer payée');
  });

  it('changes nothing of another centre’s booking (404), nor on a forged or missing token (403)', async () => {
    const before = await paidHistory();
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    const theirs = await paris.post(`/espace-centre/reservations/${reservationId}/paiement`, {
      _csrf: Browser.token((await paris.get('/espace-centre')).body),
      action: 'paye',
    });
    expect(theirs.statusCode).toBe(404);
    // An id that is nobody's answers the same.
    expect((await mark(staff, 'paye', undefined, '00000000-0000-4000-8000-00000000dead')).statusCode).toBe(404);
    expect((await mark(staff, 'paye', 'forged-forged-forged-fo')).statusCode).toBe(403);
    const missing = await staff.post(`/espace-centre/reservations/${reservationId}/paiement`, { action: 'paye' });
    expect(missing.statusCode).toBe(403);
    expect(await paidHistory()).toEqual(before);
    expect((await staff.get(path)).body).toContain('· non payée');
  });
});
