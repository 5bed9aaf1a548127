import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StageSession } from '../../../src/catalogue/schemas.js';
import type { TestApp } from '../../helpers/app.js';
import { launchChromium, listeningFixtureApp, screenshot, seriousViolations } from '../../helpers/browser.js';
import { SESSIONS } from '../../helpers/fixtures.js';

// One server, one browser and one phone-sized page for the whole file: every step reuses them.
let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  ({ t, base } = await listeningFixtureApp());
  browser = await launchChromium();
  context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: 'fr-FR',
    javaScriptEnabled: true,
  });
  page = await context.newPage();
  // A CSP violation (a blocked stylesheet, say) shows up as a console error.
  page.on('console', (m) => {
    if (m.type() === 'error' && m.text().includes('Content Security Policy')) consoleErrors.push(m.text());
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function visit(path: string) {
  const res = await page.goto(`${base}${path}`);
  return res?.status();
}

async function checkPage(name: string) {
  expect(await seriousViolations(page), name).toEqual([]);
  await screenshot(page, name);
}

function apiSessions(qs: string): Promise<StageSession[]> {
  return t.app.inject(`/api/stages?${qs}`).then((r) => (r.json() as { data: StageSession[] }).data);
}

describe('the site in headless Chromium (phone-sized)', () => {
  it('searches a town from the home page, opens a session and finds what the API says', async () => {
    expect(await visit('/')).toBe(200);
    expect(await page.getAttribute('html', 'lang')).toBe('fr');
    // The stylesheet loaded (same origin, allowed by the CSP).
    const headerBg = await page.$eval('header.site', (el) => getComputedStyle(el).backgroundColor);
    expect(headerBg).toBe('rgb(11, 58, 110)');
    await checkPage('home');

    // Keyboard: the first Tab reaches the skip link, and focus is visible.
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return { text: el.textContent, outline: getComputedStyle(el).outlineStyle };
    });
    expect(focused).toEqual({ text: 'Aller au contenu', outline: 'solid' });

    await page.getByLabel('Ville ou département').fill('Lyon');
    await Promise.all([page.waitForURL(/city=Lyon/), page.getByRole('button', { name: 'Rechercher' }).click()]);
    const expected = await apiSessions('city=Lyon');
    const links = await page.$$eval('ol.sessions h3 a', (as) => as.map((a) => a.getAttribute('href')));
    expect(links).toEqual(expected.map((s) => new URL(s.bookingUrl).pathname));
    expect(expected[0]?.bookingUrl.startsWith(`${base}/stages/`)).toBe(true);
    await checkPage('search');

    // Open the first result, as a person would.
    const first = expected[0] as StageSession;
    await Promise.all([page.waitForURL(`**/stages/${first.id}`), page.click('ol.sessions h3 a >> nth=0')]);
    expect(page.url()).toBe(first.bookingUrl);
    const facts = await page.$$eval('dl.facts dd', (dds) => dds.map((d) => d.textContent?.replace(/\s+/g, ' ').trim()));
    // Lyon, 5 March 2030, 08:00–16:00, 250 €, 8 places (the earlier of the two Lyon sessions that day).
    expect(first).toMatchObject({ day1: '2030-03-05', startTime: '08:00', priceEuros: 250, spotsAvailable: 8 });
    expect(facts.slice(0, 5)).toEqual([
      'mardi 5 mars 2030',
      'mercredi 6 mars 2030',
      'de 8 h à 16 h, les deux jours (14 heures en tout)',
      '250 €',
      '8 places disponibles',
    ]);
    expect(await page.textContent('#centre + .card')).toContain(first.centre.agrementNumber);
    expect(await page.isVisible('#reserver')).toBe(true);
    // Its structured data, as a crawler reads it from the rendered page.
    const blocks = await page.$$eval('script[type="application/ld+json"]', (ss) => ss.map((x) => x.textContent));
    expect(blocks.map((b) => JSON.parse(b as string))).toMatchObject([
      {
        '@type': 'EducationEvent',
        startDate: '2030-03-05T08:00:00+01:00',
        offers: { price: 250, priceCurrency: 'EUR', url: first.bookingUrl },
        location: { address: { postalCode: first.centre.postalCode } },
      },
    ]);
    await checkPage('session');

    // Follow the centre link: the centre's url.
    await Promise.all([page.waitForURL('**/centres/**'), page.click('#centre + .card h3 a')]);
    expect(page.url()).toBe(first.centre.url);
    expect(await page.textContent('h1')).toBe(first.centre.name);
    await checkPage('centre');
  });

  it('shows a full session and a past session with the next sessions nearby', async () => {
    // Follow the bookingUrl an API answer gives for the full session.
    const full = (await apiSessions('dept=75&includeUnavailable=true')).find((s) => s.spotsAvailable === 0);
    expect(full?.id).toBe(SESSIONS.parisMar6Full.id);
    expect((await page.goto(full?.bookingUrl as string))?.status()).toBe(200);
    expect(await page.textContent('.notice')).toContain('Ce stage est complet');
    expect(await page.isVisible('#reserver')).toBe(false);
    expect(await page.$$eval('ol.sessions h3 a', (as) => as.length)).toBe(1);
    await checkPage('session-full');

    expect(await visit(`/stages/${SESSIONS.lyonPast.id}`)).toBe(200);
    expect(await page.textContent('.notice')).toContain('Ce stage est terminé');
    await checkPage('session-past');
  });

  it('works with JavaScript off: search, results, session page', async () => {
    const noJs = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: false });
    try {
      const p = await noJs.newPage();
      await p.goto(`${base}/`);
      await p.getByLabel('Département', { exact: true }).selectOption('75');
      await p.getByLabel('Afficher aussi les sessions complètes').check();
      await Promise.all([p.waitForURL(/dept=75/), p.getByRole('button', { name: 'Rechercher' }).click()]);
      const expected = await apiSessions('dept=75&includeUnavailable=true');
      const links = await p.$$eval('ol.sessions h3 a', (as) => as.map((a) => a.getAttribute('href')));
      expect(links).toEqual(expected.map((s) => new URL(s.bookingUrl).pathname));
      expect(await p.textContent('ol.sessions')).toContain('complet');
      await Promise.all([p.waitForURL('**/stages/**'), p.click('ol.sessions h3 a >> nth=0')]);
      expect(await p.textContent('h1')).toContain('Paris');
    } finally {
      await noJs.close();
    }
  });

  it('passes axe on the other page types: department, articles, a search error, the 404 page', async () => {
    expect(await visit('/departements/69')).toBe(200);
    await checkPage('department');
    expect(await visit('/articles')).toBe(200);
    await checkPage('articles');
    expect(await visit('/articles/quand-les-points-sont-ils-credites')).toBe(200);
    await checkPage('article');
    expect(await visit('/?maxPrice=beaucoup')).toBe(400);
    expect(await page.textContent('[role=alert]')).toContain('Prix maximum');
    expect(await page.getAttribute('#maxPrice', 'aria-invalid')).toBe('true');
    await checkPage('search-error');
    expect(await visit('/nulle-part')).toBe(404);
    expect(await page.textContent('h1')).toBe('Page introuvable');
    await checkPage('not-found');
    expect(consoleErrors).toEqual([]);
  });
});
