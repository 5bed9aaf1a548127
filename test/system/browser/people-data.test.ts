import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendSignInLink } from '../../../src/accounts/sign-in.js';
import { linkPath } from '../../helpers/accounts.js';
import type { TestApp } from '../../helpers/app.js';
import { openForm, PERSON, placesLeft, privatePath, submit } from '../../helpers/booking.js';
import { checkPage, launchChromium, listeningFixtureApp, phoneContexts } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';

// A person who booked looks at what is held about them on a phone, JavaScript off, downloads it and
// deletes it: the data page, the confirmation and the answer pass axe on a phone-sized viewport.
let t: TestApp;
let base: string;
let browser: Browser;
let page: Page;
let axeContext: BrowserContext;

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

describe('Mes données on a phone, in Chromium', () => {
  it('shows what is held, downloads it, and deletes it after a confirmation', { timeout: 120_000 }, async () => {
    const session = SESSIONS.stEtienneMar5.id;
    const res = await submit(t.app, session, await openForm(t.app, `/stages/${session}`));
    expect(res.statusCode).toBe(303);
    const privateLink = privatePath(res.headers.location);
    const before = await placesLeft(t.app, session);

    const url = await sendSignInLink(t.app.database.db, PERSON.email, t.app.clock.now(), {
      baseUrl: base,
      platformName: t.app.config.platformName,
      mail: false,
    });
    await page.goto(`${base}${linkPath(url)}`);
    await Promise.all([page.waitForURL('**/mon-espace'), page.getByRole('button', { name: 'Me connecter' }).click()]);
    await Promise.all([
      page.waitForURL('**/mon-espace/donnees'),
      page.getByRole('link', { name: 'Mes données' }).click(),
    ]);
    expect(await page.getByRole('heading', { name: 'Mes données', level: 1 }).count()).toBe(1);
    expect(await page.getByText(PERSON.email).count()).toBeGreaterThan(0);
    await check('people-data');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Télécharger mes données (JSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('mes-donnees.json');
    const chunks: Buffer[] = [];
    for await (const chunk of (await download.createReadStream()) ?? []) chunks.push(chunk as Buffer);
    const data = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { reservations: { firstName: string }[] };
    expect(data.reservations.map((r) => r.firstName)).toEqual([PERSON.firstName]);

    await Promise.all([
      page.waitForURL('**/mon-espace/donnees/suppression'),
      page.getByRole('link', { name: 'Supprimer mes données…' }).click(),
    ]);
    await check('people-data-confirm');
    await page.getByRole('button', { name: 'Supprimer définitivement mes données' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Vos données ont été supprimées' }).count()).toBe(1);
    await check('people-data-deleted');
    expect(await placesLeft(t.app, session)).toBe(before + 1);
    expect((await t.app.inject(privateLink)).statusCode).toBe(404);
    await page.goto(`${base}/mon-espace`);
    expect(new URL(page.url()).pathname).toBe('/connexion');
  });
});
