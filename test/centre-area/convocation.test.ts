import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/* The joining instructions (convocation): one email per person booked, through the outbox, once. */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let smtp: TestSmtpServer;
let staff: Browser;
const id = SESSIONS.stEtienneMar5.id;
const path = `/espace-centre/seances/${id}`;
const ELOISE = PERSON.email;
const MARC = 'marc.durand@example.org';
const ZOE = 'zoe@example.org';

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { SMTP_URL: smtp.url } });
  await grantRole(t.app.database.db, 'equipe@centre-st-etienne.example', 'staff', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-st-etienne.example', 'owner', CENTRES.stEtienne.id);
  await grantRole(t.app.database.db, 'gerant@centre-paris.example', 'owner', CENTRES.paris.id);
  for (const [firstName, email, reason] of [
    ['Éloïse', ELOISE, 'voluntary'],
    ['Marc', MARC, 'probationary'],
    ['Zoé', ZOE, 'voluntary'],
  ] as const) {
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form, { ...PERSON, firstName, email, reason })).statusCode).toBe(303);
  }
  staff = await signIn(t.app, 'equipe@centre-st-etienne.example');
  // Zoé's booking is cancelled: she is not convened.
  const bookings = await staff.get(path);
  const zoe = /id="reservation-([0-9a-f-]{36})"><h3>Zoé/.exec(bookings.body)?.[1] as string;
  const res = await staff.post(`/espace-centre/reservations/${zoe}`, {
    _csrf: Browser.token(bookings.body),
    action: 'annuler',
  });
  expect(res.statusCode).toBe(303);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function send(browser: Browser, fields: Record<string, string> = {}, token?: string) {
  const page = await browser.get(path);
  return browser.post(`${path}/convocation`, { _csrf: token ?? Browser.token(page.body), ...fields });
}

/** The convocations received so far, per address. */
async function convocations() {
  await t.app.jobs.drain();
  const out: Record<string, string[]> = {};
  for (const m of smtp.received.filter((m) => m.subject.startsWith('Convocation')))
    out[m.to] = [...(out[m.to] ?? []), m.text];
  return out;
}

describe('sending the convocation', () => {
  it('emails each person booked exactly once, with where, when and what to bring; nobody cancelled', async () => {
    const res = await send(staff);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${path}?fait=convocation&envoyes=2`);
    const page = await staff.get(res.headers.location as string);
    expect(page.body).toContain('Convocation envoyée à 2 personnes.');
    expect(page.body).toContain('Convocation envoyée le lundi 4 mars 2030');

    const received = await convocations();
    expect(Object.keys(received).sort()).toEqual([ELOISE, MARC]);
    expect(received[ELOISE]).toHaveLength(1);
    expect(received[MARC]).toHaveLength(1);
    const eloise = received[ELOISE]?.[0] as string;
    expect(eloise).toContain('Bonjour Éloïse,');
    expect(eloise).toContain('Dates : mardi 5 mars 2030 et mercredi 6 mars 2030');
    expect(eloise).toContain('de 8\u00a0h\u00a030 à 16\u00a0h\u00a030');
    expect(eloise).toContain('Lieu : Centre Saint-Étienne, 2 rue B, 42000 Saint-Étienne');
    expect(eloise).toContain('votre permis de conduire');
    expect(eloise).toContain('une pièce d’identité');
    expect(eloise).not.toContain('48N');
    // Marc's course is compulsory (probationary licence): he is asked for the letter 48N.
    expect(received[MARC]?.[0]).toContain('la lettre 48N');
    expect(smtp.received.some((m) => m.to === ZOE && m.subject.startsWith('Convocation'))).toBe(false);

    // Who sent it is in the centre's history.
    const { partner } = await keysFor(t.app, CENTRES.stEtienne.id);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${id}`, headers: partner })).json();
    expect(history.data[0]).toMatchObject({
      field: 'convocationSentAt',
      actor: { kind: 'user', label: 'equipe@centre-st-etienne.example' },
    });
  });

  it('says it was already sent and sends nothing on a repeated post; sends again only when asked', async () => {
    const repeated = await send(staff);
    expect(repeated.statusCode).toBe(409);
    expect(repeated.body).toContain('La convocation a déjà été envoyée le lundi 4 mars 2030');
    expect((await convocations())[ELOISE]).toHaveLength(1);

    const owner = await signIn(t.app, 'gerant@centre-st-etienne.example');
    const again = await send(owner, { renvoyer: 'oui' });
    expect(again.statusCode).toBe(303);
    const received = await convocations();
    expect(received[ELOISE]).toHaveLength(2);
    expect(received[MARC]).toHaveLength(2);
    expect(received[ZOE]).toBeUndefined();
  });

  it('sends nothing for another centre (404) or a forged or missing token (403)', async () => {
    const paris = await signIn(t.app, 'gerant@centre-paris.example');
    const token = Browser.token((await paris.get('/espace-centre')).body);
    expect((await paris.post(`${path}/convocation`, { _csrf: token, renvoyer: 'oui' })).statusCode).toBe(404);
    expect((await send(staff, { renvoyer: 'oui' }, 'forged-forged-forged-fo')).statusCode).toBe(403);
    expect((await staff.post(`${path}/convocation`, { renvoyer: 'oui' })).statusCode).toBe(403);
    expect((await convocations())[ELOISE]).toHaveLength(2);
  });

  it('sends nothing once the course is over', async () => {
    clock.set('2030-03-07T09:00:00Z');
    const late = await signIn(t.app, 'equipe@centre-st-etienne.example');
    const res = await send(late, { renvoyer: 'oui' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Ce stage est terminé');
    expect((await convocations())[ELOISE]).toHaveLength(2);
  });
});
