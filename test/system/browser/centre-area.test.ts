import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../../src/accounts/users.js';
import type { TestApp } from '../../helpers/app.js';
import { openForm, PERSON, placesLeft, submit } from '../../helpers/booking.js';
import { launchChromium, listeningFixtureApp, screenshot, seriousViolations } from '../../helpers/browser.js';
import { CENTRES, SESSIONS } from '../../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

// A centre manager on a phone, JavaScript off: signs in with the emailed link and takes a place.
let t: TestApp;
let base: string;
let smtp: TestSmtpServer;
let browser: Browser;
let page: Page;
let axeContext: BrowserContext;
const EMAIL = 'gerante@centre-lyon.example';

beforeAll(async () => {
  smtp = await startSmtpServer();
  ({ t, base } = await listeningFixtureApp({ SMTP_URL: smtp.url }));
  await grantRole(t.app.database.db, EMAIL, 'owner', CENTRES.lyon.id);
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
  await smtp?.close();
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

describe('the centre’s area on a phone, in Chromium', () => {
  it('signs in with the emailed link and takes a place in one tap', { timeout: 120_000 }, async () => {
    await page.goto(`${base}/espace-centre`);
    expect(new URL(page.url()).pathname).toBe('/connexion');
    await check('sign-in');
    await page.getByLabel('Adresse e-mail').fill(EMAIL);
    await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);

    await t.app.jobs.drain();
    await expect.poll(() => smtp.received.filter((m) => m.to === EMAIL).length).toBe(1);
    const link = /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/[A-Za-z0-9_-]{43}/.exec(
      smtp.received[0]?.text ?? '',
    )?.[0];
    expect(link).toBeDefined();
    await page.goto(link as string);
    await check('sign-in-link');
    await Promise.all([
      page.waitForURL('**/espace-centre'),
      page.getByRole('button', { name: 'Me connecter' }).click(),
    ]);
    await expect.poll(() => page.getByRole('heading', { name: 'Espace centre' }).count()).toBe(1);
    await check('centre-area');

    const before = await placesLeft(t.app, SESSIONS.lyonMar5.id);
    await page.getByRole('button', { name: /^−1 place, mardi 5 mars 2030, 08:30/ }).click();
    await expect.poll(() => page.getByText('Places mises à jour').count()).toBe(1);
    expect(await placesLeft(t.app, SESSIONS.lyonMar5.id)).toBe(before - 1);
    await check('centre-area-place-taken');

    // A new session, twice two weeks apart, from the form.
    await page.getByRole('link', { name: 'Nouveau stage' }).click();
    await check('new-session');
    await page.getByLabel('Premier jour').fill('2030-03-19');
    await page.getByLabel('Nombre de dates').fill('2');
    await page.getByLabel('Prix (€)').fill('199');
    await Promise.all([
      page.waitForURL('**/espace-centre?cree=2'),
      page.getByRole('button', { name: 'Créer' }).click(),
    ]);
    await expect.poll(() => page.getByText('2 stages créés').count()).toBe(1);

    // The owner's webhooks: a refused URL said next to its field, then one added with its secret shown once.
    await page.getByRole('link', { name: /^Webhooks de / }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Webhooks de / }).count()).toBe(1);
    await check('centre-webhooks');
    await page.getByLabel('Adresse de réception').fill('http://hooks.example.com/in');
    await page.getByRole('button', { name: 'Ajouter le webhook' }).click();
    await expect.poll(() => page.getByText('L’adresse doit commencer par https://.').count()).toBe(1);
    await check('centre-webhooks-refused');
    await page.getByLabel('Adresse de réception').fill('https://hooks.example.com/in');
    await page.getByRole('button', { name: 'Ajouter le webhook' }).click();
    await expect.poll(() => page.getByText('elle ne sera plus jamais affichée', { exact: false }).count()).toBe(1);
    expect(await page.locator('#secret').textContent()).toMatch(/^whsec_/);
    await check('centre-webhooks-created');

    // A session's follow-up: a person books on the site, then the bookings, the roll call, the sheet, the list.
    const session = SESSIONS.lyonMar5.id;
    const form = await openForm(t.app, `/stages/${session}`);
    expect((await submit(t.app, session, form, PERSON)).statusCode).toBe(303);
    await page.goto(`${base}/espace-centre/seances/${session}`);
    await page.getByRole('button', { name: 'Marquer payée' }).click();
    await expect.poll(() => page.getByText('Réservation marquée payée.').count()).toBe(1);
    await check('centre-bookings-paid');
    await page.getByRole('button', { name: 'Envoyer la convocation' }).click();
    await expect.poll(() => page.getByText('Convocation envoyée à 1 personne.').count()).toBe(1);
    await check('centre-bookings-convocation');
    for (const [link, name] of [
      ['Présences par demi-journée', 'centre-attendance'],
      ['Feuille d’émargement', 'centre-attendance-sheet'],
      ['Stagiaires ayant suivi tout le stage', 'centre-attendees'],
    ] as const) {
      await page.goto(`${base}/espace-centre/seances/${session}`);
      await page.getByRole('link', { name: link, exact: true }).click();
      await expect.poll(() => page.locator('h1').count()).toBe(1);
      expect(await page.locator('h1').textContent()).not.toContain('introuvable');
      await check(name);
    }
    await page.goto(`${base}/espace-centre`);

    // The owner's details: a postal code of another department refused next to its field, then saved.
    await page.getByRole('link', { name: /^Coordonnées de / }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Coordonnées de / }).count()).toBe(1);
    await check('centre-details');
    await page.getByLabel('Téléphone').fill('04 72 10 20 30');
    await page.getByLabel('Code postal').fill('75001');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect
      .poll(() => page.getByText('ne dessert aucune commune du département 69', { exact: false }).count())
      .toBe(1);
    await check('centre-details-refused');
    await page.getByLabel('Code postal').fill('69002');
    await Promise.all([page.waitForURL('**?enregistre=1'), page.getByRole('button', { name: 'Enregistrer' }).click()]);
    await expect.poll(() => page.getByText('Coordonnées enregistrées.').count()).toBe(1);
    await page.goto(`${base}/espace-centre`);

    // The owner's team: a staff member invited by email.
    await page.getByRole('link', { name: /^Équipe de / }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Équipe de / }).count()).toBe(1);
    await check('centre-team');
    await page.getByLabel('Adresse e-mail').fill('recrue@centre-lyon.example');
    await page.getByRole('button', { name: 'Inviter' }).click();
    await expect.poll(() => page.getByText('fait maintenant partie de l’équipe', { exact: false }).count()).toBe(1);
    await check('centre-team-invited');
    await page.goto(`${base}/espace-centre`);

    // The owner's API keys: one created, shown once, then revoked.
    await page.getByRole('link', { name: /^Clés d’API de / }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Clés d’API de / }).count()).toBe(1);
    await check('centre-keys');
    await page.getByLabel('Nom de la clé').fill('Logiciel de planning');
    await page.getByRole('button', { name: 'Créer la clé' }).click();
    await expect.poll(() => page.getByText('elle ne sera plus jamais affichée', { exact: false }).count()).toBe(1);
    expect(await page.locator('#key').textContent()).toMatch(/^sk_/);
    await check('centre-keys-created');
    // The answer reloaded sends the form again: no second key, and the first is not shown again.
    const key = (await page.locator('#key').textContent()) as string;
    await page.reload();
    await expect.poll(() => page.getByText('Cette clé était déjà créée', { exact: false }).count()).toBe(1);
    expect(await page.locator('#key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(await page.getByRole('button', { name: 'Révoquer la clé Logiciel de planning' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Révoquer la clé Logiciel de planning' }).click();
    await expect.poll(() => page.getByText('Clé révoquée', { exact: false }).count()).toBe(1);
    await page.goto(`${base}/espace-centre`);

    // The centre's history: the key just created and revoked, the member invited, the places changed.
    await page.getByRole('link', { name: /^Historique de / }).click();
    await expect.poll(() => page.getByRole('heading', { name: /^Historique de / }).count()).toBe(1);
    await expect.poll(() => page.getByText('révoquée : non → oui', { exact: false }).count()).toBe(1);
    await check('centre-history');
    await page.goto(`${base}/espace-centre`);

    // A session's edit form: price with a French comma, its declaration, its trainers (never published).
    await page.getByRole('link', { name: 'mardi 5 mars 2030, 08:30–16:30' }).click();
    await page.getByRole('link', { name: /^Modifier le prix/ }).click();
    await check('edit-session');
    await page.getByLabel('Prix (€)').fill('245,50');
    await page.getByLabel('Déclaré en préfecture le').fill('2030-02-20');
    await page.getByLabel('Psychologue', { exact: false }).first().fill('Apolline Vasseur');
    await page.getByLabel('Formateur titulaire du BAFM').fill('Tiburce Haddad');
    await page.getByRole('button', { name: 'Enregistrer' }).click();
    await expect.poll(() => page.getByText('Stage modifié').count()).toBe(1);
    expect((await t.app.inject(`/api/stages/${SESSIONS.lyonMar5.id}`)).json().priceEuros).toBe(245.5);
    await check('edit-session-saved');

    // A pasted file: the dry run's preview, then confirmed.
    await page.goto(`${base}/espace-centre`);
    await page.getByRole('link', { name: /^Importer un fichier/ }).click();
    await check('import');
    await page
      .locator('textarea#contenu')
      .fill(
        [
          'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable',
          `session,10000000-0000-4000-8000-0000000000d1,${CENTRES.lyon.id},LYON-IMPORT-1,2030-03-25,08:30,16:30,229,20,20`,
        ].join('\n'),
      );
    await page.getByRole('button', { name: 'Voir l’aperçu', exact: true }).click();
    await expect.poll(() => page.getByText('1 stage(s) créé(s)').count()).toBe(1);
    await check('import-preview');
    await page.getByRole('button', { name: 'Confirmer l’import' }).click();
    await expect.poll(() => page.getByText('Import appliqué').count()).toBe(1);
    expect((await t.app.inject('/api/stages/10000000-0000-4000-8000-0000000000d1')).statusCode).toBe(200);

    // A file chosen on the phone (a multipart form, no JavaScript): the same preview, then confirmed.
    await page.getByLabel(/^Fichier/).setInputFiles({
      name: 'planning-lyon.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        `\uFEFF${[
          'type,id,centreId,courseNumber,day1,startTime,endTime,priceEuros,capacity,spotsAvailable',
          `session,10000000-0000-4000-8000-0000000000d2,${CENTRES.lyon.id},LYON-IMPORT-2,2030-03-26,08:30,16:30,239,20,20`,
        ].join('\r\n')}\r\n`,
      ),
    });
    await page.getByRole('button', { name: 'Voir l’aperçu du fichier' }).click();
    await expect.poll(() => page.getByText('Fichier : planning-lyon.csv').count()).toBe(1);
    expect(await page.getByText('1 stage(s) créé(s)').count()).toBe(1);
    await check('import-upload-preview');
    await page.getByRole('button', { name: 'Confirmer l’import' }).click();
    await expect.poll(() => page.getByText('Import appliqué').count()).toBe(1);
    expect((await t.app.inject('/api/stages/10000000-0000-4000-8000-0000000000d2')).json().priceEuros).toBe(239);
    await page.goto(`${base}/espace-centre`);

    await page.getByRole('button', { name: 'Se déconnecter', exact: true }).click();
    await expect.poll(() => page.getByText('Vous êtes déconnecté.').count()).toBe(1);
  });
});
