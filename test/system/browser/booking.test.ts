import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { placesLeft } from '../../helpers/booking.js';
import { checkPage, launchChromium, listeningFixtureApp, phoneContexts, screenshot } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';

// A person on a phone, with JavaScript off: the whole booking works on plain HTML forms.
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let axeContext: BrowserContext;
const session = SESSIONS.lyonMar5; // 3 places

beforeAll(async () => {
  ({ t, base } = await listeningFixtureApp());
  browser = await launchChromium();
  const contexts = await phoneContexts(browser);
  page = await contexts.phone.newPage();
  axeContext = contexts.axe;
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const check = (name: string) => checkPage(page, axeContext, name);

describe('booking on a phone, in Chromium', () => {
  // A dozen page loads and three axe runs: slow on a loaded machine, hence its own time limit.
  it('finds a session from the home page, books it, sees the confirmation, and cancels it', {
    timeout: 120_000,
  }, async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('Ville ou département').fill('Lyon');
    await Promise.all([page.waitForURL(/city=Lyon/), page.getByRole('button', { name: 'Rechercher' }).click()]);
    await Promise.all([page.waitForURL(`**/stages/${session.id}`), page.click(`a[href="/stages/${session.id}"]`)]);
    await expect.poll(() => page.getByRole('heading', { name: 'Réserver une place' }).count()).toBe(1);
    await check('booking-form');

    // A first try with a landline and no consent: the page says what to fix, next to each field.
    await page.getByLabel('Prénom').fill('Éloïse');
    await page.getByLabel('Nom', { exact: true }).fill('Martin');
    await page.getByLabel(/Adresse e-mail/).fill('eloise.martin@example.org');
    await page.getByLabel(/Téléphone mobile/).fill('04 72 00 00 00');
    await page.getByLabel('Permis probatoire', { exact: false }).check();
    await Promise.all([
      page.waitForURL(`**/stages/${session.id}/reservation#reserver`),
      page.getByRole('button', { name: 'Réserver ma place' }).click(),
    ]);
    expect(await page.locator('.errors li').allTextContents()).toEqual([
      expect.stringContaining('Indiquez un numéro de mobile français'),
      expect.stringContaining('Cochez la case'),
    ]);
    expect(await page.getByLabel(/Téléphone mobile/).getAttribute('aria-invalid')).toBe('true');
    // What was typed is still there.
    expect(await page.getByLabel('Prénom').inputValue()).toBe('Éloïse');
    expect(await page.getByLabel('Permis probatoire', { exact: false }).isChecked()).toBe(true);
    await check('booking-errors');
    expect(await placesLeft(t.app, session.id)).toBe(3);

    await page.getByLabel(/Téléphone mobile/).fill('06 12 34 56 78');
    await page.getByLabel(/J’ai pris connaissance des conditions du centre/).check();
    await Promise.all([
      page.waitForURL(/\/reservations\/[A-Za-z0-9_-]{22}#reservation$/),
      page.getByRole('button', { name: 'Réserver ma place' }).click(),
    ]);
    await expect.poll(() => page.getByRole('heading', { name: 'Votre réservation' }).count()).toBe(1);
    const reference = await page.locator('.reference strong').textContent();
    expect(reference).toMatch(/^SRP-[0-9A-Z]{4}-[0-9A-Z]{4}$/);
    expect(await page.locator('main').textContent()).toContain('Notez votre référence');
    await check('booking-confirmation');
    // The calendar link downloads the reservation's .ics file.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Ajouter à mon agenda (.ics)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`stage-${reference}.ics`);
    expect(await placesLeft(t.app, session.id)).toBe(2);
    const privateUrl = page.url();

    // Reloading the confirmation books nothing more.
    await page.reload({ waitUntil: 'load' });
    expect(await placesLeft(t.app, session.id)).toBe(2);

    // From the keyboard this time (after a reload, the restored scroll position can still be moving under a tap).
    await page.getByRole('button', { name: 'Annuler ma réservation' }).focus();
    await Promise.all([page.waitForResponse((r) => r.url().endsWith('/annulation')), page.keyboard.press('Enter')]);
    await expect.poll(() => page.locator('.status').textContent()).toBe('Réservation annulée');
    expect(page.url()).toBe(privateUrl.replace(/#.*$/, ''));
    expect(await placesLeft(t.app, session.id)).toBe(3);
    await screenshot(page, 'booking-cancelled');
  });
});
