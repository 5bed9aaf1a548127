import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { setCentreSuspension } from '../../src/admin/repository/centres.js';
import { CLI_ACTOR } from '../../src/history/actor.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * A centre cancels a session from its area, with a reason: the person who booked on the site is
 * emailed that reason, their reservation is cancelled, and every door says the session is.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let smtp: TestSmtpServer;
let owner: Browser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { SMTP_URL: smtp.url } });
  await grantRole(t.app.database.db, 'gerante@centre-lyon.example', 'owner', CENTRES.lyon.id);
  owner = await signIn(t.app, 'gerante@centre-lyon.example');
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

async function cancel(browser: Browser, id: string, raison: string) {
  const page = await browser.get('/espace-centre');
  return browser.post(`/espace-centre/seances/${id}/annulation`, { _csrf: Browser.token(page.body), raison });
}

describe('cancelling a session from the centre’s area', () => {
  it('emails the reason to the person booked, cancels the booking, and takes the session off every door', async () => {
    const id = SESSIONS.lyonMar5.id;
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form)).statusCode).toBe(303);
    await t.app.jobs.drain();
    const before = smtp.received.length;

    const res = await cancel(owner, id, 'Formateur BAFM malade, stage reporté au 19 mars.');
    expect(res.statusCode, res.body).toBe(303);
    expect(res.headers.location).toBe('/espace-centre?annule=1');
    expect((await owner.get('/espace-centre?annule=1')).body).toContain('1 personne prévenue par e-mail');

    await t.app.jobs.drain();
    await expect.poll(() => smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1);
    expect(mail?.to).toBe(PERSON.email);
    expect(mail?.subject).toMatch(/^Stage annulé : mardi 5 mars 2030 à Lyon \(réservation SRP-/);
    expect(mail?.text).toContain('Raison donnée par le centre : Formateur BAFM malade, stage reporté au 19 mars.');

    expect((await t.app.inject(`/api/stages/${id}`)).json().status).toBe('cancelled');
    const { partner } = await keysFor(t.app, CENTRES.lyon.id);
    const booked = (await t.app.inject({ url: `/api/admin/reservations?sessionId=${id}`, headers: partner })).json();
    expect(booked.data.map((r: { status: string }) => r.status)).toEqual(['cancelled']);
    const history = (await t.app.inject({ url: `/api/admin/history?entityId=${id}`, headers: partner })).json();
    expect(history.data[0]).toMatchObject({ field: 'status', newValue: 'cancelled', actor: { kind: 'user' } });
  });

  it('is open to the centre’s staff too', async () => {
    await grantRole(t.app.database.db, 'equipe@centre-lyon.example', 'staff', CENTRES.lyon.id);
    const staff = await signIn(t.app, 'equipe@centre-lyon.example');
    const res = await cancel(staff, SESSIONS.lyonApr2Full.id, 'Salle indisponible.');
    expect(res.statusCode).toBe(303);
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonApr2Full.id}`)).json().status).toBe('cancelled');
  });

  it('asks for the reason, and never cancels another centre’s session', async () => {
    expect((await cancel(owner, SESSIONS.lyonMar5Early.id, '')).statusCode).toBe(400);
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5Early.id}`)).json().status).not.toBe('cancelled');
    const other = await cancel(owner, SESSIONS.parisMar12.id, 'Pas le nôtre');
    expect(other.statusCode).toBe(404);
    expect((await t.app.inject(`/api/stages/${SESSIONS.parisMar12.id}`)).json().status).not.toBe('cancelled');
  });

  it('still cancels and tells the people booked when the centre is suspended', async () => {
    const id = SESSIONS.lyonMar5Early.id;
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form, { ...PERSON, email: 'suspendu@example.org' })).statusCode).toBe(303);
    await setCentreSuspension(
      t.app.database.db,
      CENTRES.lyon.id,
      { suspended: true, reason: 'Contrôle' },
      undefined,
      CLI_ACTOR,
    );
    await t.app.catalogue.refresh();
    try {
      const res = await cancel(owner, id, 'Centre fermé par la préfecture.');
      expect(res.statusCode).toBe(303);
      await t.app.jobs.drain();
      await expect
        .poll(() =>
          smtp.received.filter((m) => m.to === 'suspendu@example.org' && m.subject.startsWith('Stage annulé')),
        )
        .toHaveLength(1);
      const { admin } = await keysFor(t.app, CENTRES.lyon.id);
      const stored = (await t.app.inject({ url: `/api/admin/sessions/${id}`, headers: admin })).json();
      expect(stored.status).toBe('cancelled');
    } finally {
      await setCentreSuspension(t.app.database.db, CENTRES.lyon.id, { suspended: false }, undefined, CLI_ACTOR);
      await t.app.catalogue.refresh();
    }
  });
});
