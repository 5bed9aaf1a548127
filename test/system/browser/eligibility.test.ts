import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../../helpers/app.js';
import { checkPage, launchChromium, listeningFixtureApp, phoneContexts } from '../../helpers/browser.js';

// "Can I, and by when?" on a phone, JavaScript off: a refusal next to its field, then the answer.
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

describe('the eligibility page on a phone, in Chromium', () => {
  it('corrects a date, then reads the answer with its sources and sessions', { timeout: 120_000 }, async () => {
    await page.goto(`${base}/peut-on-faire-un-stage`);
    await checkPage(page, axeContext, 'eligibility-form');

    await page.getByLabel('Points qu’il vous reste').fill('3');
    await page.getByLabel('Lettre 48N (stage obligatoire)').fill('2030-05-01');
    await page.getByRole('button', { name: 'Voir la réponse' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(1);
    expect(await page.locator('#letter48nReceivedOn-error').textContent()).toContain('est après aujourd’hui');
    await checkPage(page, axeContext, 'eligibility-error');

    await page.getByLabel('Lettre 48N (stage obligatoire)').fill('2029-11-06');
    await page.getByLabel('Permis probatoire').fill('2028-06-17');
    await page.getByLabel('Ville ou code postal').fill('45,4');
    await page.getByRole('button', { name: 'Voir la réponse' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Réponse : Oui' }).count()).toBe(1);
    expect(await page.locator('main').textContent()).toContain('au plus tard le 6 mars 2030');
    expect(await page.getByRole('link', { name: 'Code de la route, article R223-4' }).count()).toBeGreaterThan(0);
    expect(await page.locator('ol.sessions li').count()).toBeGreaterThan(0);
    await checkPage(page, axeContext, 'eligibility-answer');
  });
});
