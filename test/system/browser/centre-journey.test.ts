import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../../src/accounts/users.js';
import { buildApp } from '../../../src/app.js';
import { type Database, openDatabase } from '../../../src/db/connect.js';
import { frozenClock, type TestApp, testConfig } from '../../helpers/app.js';
import { checkPage, launchChromium, listeningFixtureApp, phoneContexts } from '../../helpers/browser.js';
import { CENTRES, FIXTURE_NOW } from '../../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

/*
 * A centre's day, end to end, on a phone in Chromium with JavaScript off, two instances on one
 * PostgreSQL database: the manager signs in with the link read from an SMTP server, creates a
 * session in the page (the other instance serves it, told by the database, not asked to reload),
 * takes a place, sees a person's booking made on the public site, cancels the session with a reason,
 * and the person receives the email saying so.
 */

let t: TestApp;
let base: string;
let smtp: TestSmtpServer;
let db2: Database;
let second: FastifyInstance;
let browser: Browser;
let manager: Page;
let person: Page;
let axe: BrowserContext;
const OWNER = 'direction@centre-lyon.example';
const PERSON_EMAIL = 'jeanne.roux@example.org';

beforeAll(async () => {
  smtp = await startSmtpServer();
  ({ t, base } = await listeningFixtureApp({ SMTP_URL: smtp.url }));
  // The interop project runs on PostgreSQL: the second instance has its own pool and its own LISTEN.
  db2 = await openDatabase({ kind: 'postgres', url: t.db.url as string });
  second = await buildApp(testConfig({ PUBLIC_BASE_URL: base }), {
    database: db2,
    clock: frozenClock(FIXTURE_NOW),
    logger: false,
  });
  await second.ready();
  await grantRole(t.app.database.db, OWNER, 'owner', CENTRES.lyon.id);
  browser = await launchChromium();
  const contexts = await phoneContexts(browser);
  axe = contexts.axe;
  manager = await contexts.phone.newPage();
  person = await (await phoneContexts(browser)).phone.newPage();
});
afterAll(async () => {
  await browser?.close();
  await second?.close();
  await db2?.close();
  await t?.close();
  await smtp?.close();
});

const mailsTo = (to: string) => smtp.received.filter((m) => m.to === to);

/** The session of 19 March 2030 at 211 € as the second instance serves it, without being asked to reload. */
async function servedBySecond(): Promise<{ id: string; spotsAvailable: number } | undefined> {
  const list = (await second.inject('/api/stages?dept=69&from=2030-03-19&to=2030-03-19&limit=50')).json();
  return (list.data as { id: string; priceEuros: number; spotsAvailable: number }[]).find((s) => s.priceEuros === 211);
}

describe('a centre’s day on a phone, two instances', () => {
  it('signs in by email, creates a session, takes a place, sees a booking, cancels, and the person is told', {
    timeout: 180_000,
  }, async () => {
    await manager.goto(`${base}/connexion`);
    await manager.getByLabel('Adresse e-mail').fill(OWNER);
    await manager.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
    await t.app.jobs.drain();
    await expect.poll(() => mailsTo(OWNER).length).toBe(1);
    const link = /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/[A-Za-z0-9_-]{43}/.exec(mailsTo(OWNER)[0]?.text ?? '');
    await manager.goto(link?.[0] as string);
    await Promise.all([
      manager.waitForURL('**/espace-centre'),
      manager.getByRole('button', { name: 'Me connecter' }).click(),
    ]);

    // A new session, from the form; the other instance serves it once the database tells it.
    await manager.getByRole('link', { name: 'Nouveau stage' }).click();
    await manager.getByLabel('Premier jour').fill('2030-03-19');
    await manager.getByLabel('Prix (€)').fill('211');
    await Promise.all([
      manager.waitForURL('**/espace-centre?cree=1'),
      manager.getByRole('button', { name: 'Créer' }).click(),
    ]);
    await expect.poll(servedBySecond, { timeout: 10_000 }).toBeDefined();
    const created = (await servedBySecond()) as { id: string; spotsAvailable: number };
    const capacity = created.spotsAvailable;

    // One place sold elsewhere, in one tap.
    const card = manager.locator(`#seance-${created.id}`);
    await card.getByRole('button', { name: /^−1 place/ }).click();
    await expect.poll(() => manager.getByText('Places mises à jour').count()).toBe(1);
    await expect.poll(async () => (await servedBySecond())?.spotsAvailable, { timeout: 10_000 }).toBe(capacity - 1);

    // A person books it on the public site.
    await person.goto(`${base}/stages/${created.id}`);
    await person.getByLabel('Prénom').fill('Jeanne');
    await person.getByLabel('Nom', { exact: true }).fill('Roux');
    await person.getByLabel(/Adresse e-mail/).fill(PERSON_EMAIL);
    await person.getByLabel(/Téléphone mobile/).fill('06 12 34 56 78');
    await person.getByLabel('Stage volontaire', { exact: false }).check();
    await person.getByLabel(/J’ai pris connaissance des conditions du centre/).check();
    await Promise.all([
      person.waitForURL(/\/reservations\/[A-Za-z0-9_-]{22}#reservation$/),
      person.getByRole('button', { name: 'Réserver ma place' }).click(),
    ]);

    // The manager sees it on the session's page.
    await manager.goto(`${base}/espace-centre`);
    await manager.locator(`#seance-${created.id}`).getByRole('link').first().click();
    await expect.poll(() => manager.getByText('Jeanne Roux').count()).toBe(1);
    expect(await manager.locator('main').textContent()).toContain(PERSON_EMAIL);
    await checkPage(manager, axe, 'journey-session-bookings');

    // The course cannot take place: cancelled with a reason, and the person is emailed it.
    await manager.goto(`${base}/espace-centre`);
    const toCancel = manager.locator(`#seance-${created.id}`);
    await toCancel.getByText('Annuler ce stage…').click();
    await toCancel.getByLabel('Raison, envoyée aux personnes inscrites').fill('Formateur malade, stage reporté.');
    await checkPage(manager, axe, 'journey-cancel-open');
    await toCancel.getByRole('button', { name: /^Annuler le stage du / }).click();
    await expect
      .poll(async () => (await second.inject(`/api/stages/${created.id}`)).json().status, {
        timeout: 10_000,
      })
      .toBe('cancelled');
    await t.app.jobs.drain();
    await expect.poll(() => mailsTo(PERSON_EMAIL).filter((m) => m.subject?.startsWith('Stage annulé')).length).toBe(1);
    const told = mailsTo(PERSON_EMAIL).find((m) => m.subject?.startsWith('Stage annulé'));
    expect(told?.text).toContain('Formateur malade, stage reporté.');
    expect(told?.text).toContain('Bonjour Jeanne');
  });
});
