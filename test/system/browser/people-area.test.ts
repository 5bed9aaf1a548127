import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../../helpers/booking.js';
import { type PhoneWithMail, phoneWithMail } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';
import type { TestSmtpServer } from '../../helpers/smtp.js';

// A person who booked twice comes back on a phone, JavaScript off: from the reservation's page to
// the sign-in, the emailed link, their reservations, and a cancellation.
let phone: PhoneWithMail;
let t: TestApp;
let base: string;
let smtp: TestSmtpServer;
let page: Page;

beforeAll(async () => {
  phone = await phoneWithMail();
  ({ t, base, smtp, page } = phone);
});
afterAll(() => phone?.close());

const check = (name: string) => phone.check(name);

async function book(sessionId: string, reason: string) {
  const form = await openForm(t.app, `/stages/${sessionId}`);
  const res = await submit(t.app, sessionId, form, { ...PERSON, reason });
  expect(res.statusCode).toBe(303);
  return privatePath(res.headers.location);
}

describe('a person’s reservations on a phone, in Chromium', () => {
  it('signs in from the reservation’s page, sees both bookings and cancels one', { timeout: 120_000 }, async () => {
    const stEtienne = SESSIONS.stEtienneMar5.id;
    const first = await book(stEtienne, 'voluntary');
    await book(SESSIONS.reunionMar19.id, 'probationary');

    await page.goto(`${base}${first}`);
    await page.getByRole('link', { name: 'Retrouver toutes mes réservations' }).click();
    expect(new URL(page.url()).pathname).toBe('/connexion');
    await page.getByLabel('Adresse e-mail').fill(PERSON.email);
    await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);

    await t.app.jobs.drain();
    const linkIn = () =>
      smtp.received
        .map((m) => /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/[A-Za-z0-9_-]{43}/.exec(m.text ?? '')?.[0])
        .find((l) => l !== undefined);
    await expect.poll(linkIn).toBeDefined();
    await page.goto(linkIn() as string);
    await Promise.all([page.waitForURL('**/mon-espace'), page.getByRole('button', { name: 'Me connecter' }).click()]);
    await expect.poll(() => page.getByRole('heading', { name: 'Mes réservations' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: /^Stage des / }).count()).toBe(2);
    expect(await page.getByText('heure de La Réunion').count()).toBe(1);
    await check('people-area');

    const before = await placesLeft(t.app, stEtienne);
    await Promise.all([
      page.waitForURL('**/mon-espace?annule=1'),
      page
        .getByRole('button', { name: /^Annuler la réservation / })
        .first()
        .click(),
    ]);
    await expect.poll(() => page.getByText('Réservation annulée : la place est rendue').count()).toBe(1);
    expect(await placesLeft(t.app, stEtienne)).toBe(before + 1);
    expect(await page.getByRole('heading', { name: 'Passées ou annulées' }).count()).toBe(1);
    await check('people-area-cancelled');
  });

  it('changes the date of a booking from the signed-in area', { timeout: 120_000 }, async () => {
    // Still signed in from the test above. Bourg-en-Bresse on 14 March: ten days ahead, changeable.
    const bourg = SESSIONS.bourgMar14.id;
    await book(bourg, 'voluntary');
    await page.goto(`${base}/mon-espace`);
    const card = page.getByRole('article', { name: /^Stage des jeudi 14 mars 2030/ });
    await Promise.all([
      page.waitForURL('**/mon-espace/reservations/*/changement'),
      card.getByRole('link', { name: 'Changer de date' }).click(),
    ]);
    expect(await page.getByRole('heading', { name: 'Changer de date' }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Dans un centre proche' }).count()).toBe(1);
    await check('people-area-change');

    const before = await placesLeft(t.app, bourg);
    const target = page.getByRole('listitem').filter({ hasText: 'Centre Ajaccio' });
    await Promise.all([
      page.waitForURL('**/mon-espace?change=1'),
      target.getByRole('button', { name: 'Choisir ce stage' }).click(),
    ]);
    await expect.poll(() => page.getByText('Date changée').count()).toBe(1);
    expect(await page.getByRole('heading', { name: /^Stage des mercredi 13 mars 2030/ }).count()).toBe(1);
    expect(await page.getByRole('heading', { name: /^Stage des jeudi 14 mars 2030/ }).count()).toBe(1); // cancelled, listed below
    expect(await placesLeft(t.app, bourg)).toBe(before + 1);
    await check('people-area-changed');
  });
});
