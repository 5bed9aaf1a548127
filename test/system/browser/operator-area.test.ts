import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSignInLink } from '../../../src/accounts/sign-in.js';
import { grantRole } from '../../../src/accounts/users.js';
import { linkPath } from '../../helpers/accounts.js';
import type { TestApp } from '../../helpers/app.js';
import { launchChromium, listeningFixtureApp, screenshot, seriousViolations } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';

// An operator on a phone, JavaScript off: signs in, finds a centre, suspends it, restores it, and
// visits each page of the operators' area, each checked with axe.
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let axeContext: BrowserContext;
const EMAIL = 'exploitant@stages.example';

beforeAll(async () => {
  ({ t, base } = await listeningFixtureApp({}));
  await grantRole(t.app.database.db, EMAIL, 'admin');
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: 'fr-FR',
    javaScriptEnabled: false,
    isMobile: true,
    hasTouch: true,
  });
  page = await context.newPage();
  axeContext = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'fr-FR' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** axe on a copy of the page (scripts are off in the page itself), then a screenshot. */
async function check(name: string) {
  const url = page.url();
  const html = await page.content();
  const copy = await axeContext.newPage();
  await copy.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await copy.goto(url);
  expect(await seriousViolations(copy), name).toEqual([]);
  await copy.close();
  await screenshot(page, name);
}

describe('the operators’ area on a phone, in Chromium', () => {
  it('suspends and restores a centre, and every page passes axe', { timeout: 120_000 }, async () => {
    const url = await sendSignInLink(t.app.database.db, EMAIL, t.app.clock.now(), {
      baseUrl: base,
      platformName: t.app.config.platformName,
      mail: false,
    });
    await page.goto(`${base}${linkPath(url)}`);
    await Promise.all([
      // An admin with no centre role lands in the operators' area.
      page.waitForURL('**/administration'),
      page.getByRole('button', { name: 'Me connecter' }).click(),
    ]);
    await expect.poll(() => page.getByRole('heading', { name: 'Centres', exact: true }).count()).toBe(1);
    await check('operator-centres');

    await page.getByLabel('Nom, ville, numéro d’agrément ou département').fill('lyon');
    await page.getByRole('button', { name: 'Rechercher' }).click();
    await expect.poll(() => page.getByRole('link', { name: 'Centre Lyon' }).count()).toBe(1);
    await page.getByRole('link', { name: 'Centre Lyon' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Centre Lyon' }).count()).toBe(1);
    await check('operator-centre');

    await page.getByLabel(/Motif de la suspension/).fill('Contrôle préfectoral en cours');
    await page.getByRole('button', { name: 'Suspendre ce centre' }).click();
    await expect.poll(() => page.getByText('Le centre est suspendu').count()).toBe(1);
    await check('operator-centre-suspended');
    expect((await fetch(`${base}/api/stages/${SESSIONS.lyonMar5.id}`)).status).toBe(404);
    await page.getByRole('button', { name: 'Rétablir ce centre' }).click();
    await expect.poll(() => page.getByText('Le centre est rétabli').count()).toBe(1);
    expect((await fetch(`${base}/api/stages/${SESSIONS.lyonMar5.id}`)).status).toBe(200);

    // A refused new centre: the message sits next to its field.
    await page.goto(`${base}/administration/centres/nouveau`);
    const fields: [RegExp, string][] = [
      [/^Nom du centre/, 'Route Sereine'],
      [/^Identifiant d’adresse/, 'route-sereine'],
      [/^Adresse/, '12 rue Francis de Pressensé'],
      [/^Code postal/, '75001'],
      [/^Ville/, 'Villeurbanne'],
      [/^Département/, '69'],
      [/^Latitude/, '45.77'],
      [/^Longitude/, '4.89'],
      [/^Numéro d’agrément/, 'R2406900123'],
    ];
    for (const [label, value] of fields) await page.getByLabel(label).fill(value);
    await page.getByRole('button', { name: 'Créer le centre' }).click();
    await expect.poll(() => page.getByText('doit desservir une commune du département').count()).toBe(1);
    await check('operator-new-centre-refused');
    for (const [path, name] of [
      ['/administration/utilisateurs', 'operator-users'],
      ['/administration/cles', 'operator-keys'],
      ['/administration/historique', 'operator-history'],
      ['/administration/webhooks', 'operator-webhooks'],
    ] as const) {
      await page.goto(`${base}${path}`);
      await check(name);
    }
  });
});
