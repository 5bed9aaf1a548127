import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, placesLeft, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* A session's bookings in the centre's area: who booked on the site, confirmed or cancelled in one tap. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let staff: Browser;
const id = SESSIONS.stEtienneMar5.id;
const path = `/espace-centre/seances/${id}`;

beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  for (const [firstName, email] of [
    ['Éloïse', PERSON.email],
    ['Marc', 'marc.durand@example.org'],
  ] as const) {
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form, { ...PERSON, firstName, email })).statusCode).toBe(303);
  }
});
afterAll(() => t.close());

const statuses = async () => {
  const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
  const list = (await t.app.inject({ url: `/api/admin/reservations?sessionId=${id}`, headers: partner })).json();
  return Object.fromEntries(list.data.map((r: { email: string; status: string }) => [r.email, r.status]));
};

async function act(browser: Browser, reservationId: string, action: string, token?: string) {
  const page = await browser.get(path);
  return browser.post(`/espace-centre/reservations/${reservationId}`, {
    _csrf: token ?? Browser.token(page.body),
    action,
  });
}

const reservationIds = (html: string) =>
  [...html.matchAll(/id="reservation-([0-9a-f-]{36})"/g)].map((m) => m[1] as string);

describe('a session’s bookings in the centre’s area', () => {
  it('lists who booked on the site, and confirms or cancels a booking in one tap', async () => {
    const page = await staff.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Éloïse N’Diaye-Martin');
    expect(page.body).toContain('marc.durand@example.org');
    expect(page.body).toContain('Réservation à confirmer');
    const [marc, eloise] = reservationIds(page.body); // newest first
    const places = await placesLeft(t.app, id);

    const confirmed = await act(staff, eloise as string, 'confirmer');
    expect(confirmed.statusCode).toBe(303);
    expect(confirmed.headers.location).toBe(`${path}?fait=confirmer`);
    const cancelled = await act(staff, marc as string, 'annuler');
    expect(cancelled.statusCode).toBe(303);
    expect(await statuses()).toEqual({ [PERSON.email]: 'confirmed', 'marc.durand@example.org': 'cancelled' });
    expect(await placesLeft(t.app, id)).toBe(places + 1);
    expect((await staff.get(`${path}?fait=annuler`)).body).toContain('la place est rendue');

    // A cancelled booking stays cancelled.
    expect((await act(staff, marc as string, 'confirmer')).statusCode).toBe(409);
  });

  it('is the owner’s as much as the staff’s', async () => {
    await grantRole(t.app.database.db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
    const owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
    const page = await owner.get(path);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('marc.durand@example.org');
  });

  it('shows and changes nothing of another centre, and refuses a forged form', async () => {
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    expect((await paris.get(path)).statusCode).toBe(404);
    const [first] = reservationIds((await staff.get(path)).body);
    const before = await statuses();
    const res = await paris.post(`/espace-centre/reservations/${first}`, {
      _csrf: Browser.token((await paris.get('/espace-centre')).body),
      action: 'annuler',
    });
    expect(res.statusCode).toBe(404);
    expect((await act(staff, first as string, 'annuler', 'forged-forged-forged-fo')).statusCode).toBe(403);
    expect(await statuses()).toEqual(before);
  });
});
