import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole, listUsers } from '../../src/accounts/users.js';
import { Browser, followLink, linkPath, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * The centre's team page, its owner's alone: a staff member invited by email (the normal sign-in
 * link, through the outbox, saying who invited them where) who then works in the centre; a member
 * removed loses the centre at their next request, on another instance too; the last owner cannot
 * leave; staff 403, another centre 404, a forged form 403, nothing changed.
 */

const clock = frozenClock(FIXTURE_NOW);
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const PARIS_OWNER = 'gerant@centre-paris.example';
let t: TestApp;
/** A second instance on the same database. */
let other: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { SMTP_URL: smtp.url } });
  other = await buildTestApp({ database: t.db, clock, env: { JOBS_POLL_MS: '0' } });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, STAFF, 'staff', CENTRES.lyon.id);
  await grantRole(db, PARIS_OWNER, 'owner', CENTRES.paris.id);
});
afterAll(async () => {
  await other.close();
  await t.close();
  await smtp.close();
});

const lyonPage = `/espace-centre/centres/${CENTRES.lyon.id}/equipe`;
const parisPage = `/espace-centre/centres/${CENTRES.paris.id}/equipe`;

/** The centre's members and roles, as the accounts know them. */
async function team(centreId = CENTRES.lyon.id) {
  const users = await listUsers(t.app.database.db);
  return Object.fromEntries(
    users.flatMap((u) => u.memberships.filter((m) => m.centreId === centreId).map((m) => [u.email, m.role])),
  );
}

async function userId(email: string) {
  const users = await listUsers(t.app.database.db);
  return users.find((u) => u.email === email)?.id as string;
}

async function invite(browser: Browser, email: string, path = lyonPage) {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  return browser.post(path, { _csrf: Browser.token(page.body), email });
}

describe('the centre’s team page', () => {
  it('invites a staff member by email: the normal sign-in link, who invited them where; they then work in the centre', async () => {
    const owner = await signIn(t.app, OWNER);
    const dashboard = await owner.get('/espace-centre');
    expect(dashboard.body).toContain(`href="${lyonPage}"`);
    const page = await owner.get(lyonPage);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain(OWNER);
    expect(page.body).toContain(STAFF);
    expect(page.body).toContain('en ligne de commande');

    const before = smtp.received.length;
    const invited = await invite(owner, '  Nouvelle.Recrue@Example.org ');
    expect(invited.statusCode).toBe(201);
    expect(invited.body).toContain('nouvelle.recrue@example.org fait maintenant partie de l’équipe');
    expect(invited.body).toContain('id="membre-');
    expect(await team()).toMatchObject({ 'nouvelle.recrue@example.org': 'staff' });

    await t.app.jobs.drain();
    await expect.poll(() => smtp.received.length).toBe(before + 1);
    const mail = smtp.received.at(-1);
    expect(mail?.to).toBe('nouvelle.recrue@example.org');
    expect(mail?.subject).toContain('Centre Lyon vous invite dans son équipe');
    expect(mail?.text).toContain(`${OWNER} vous a ajouté à l’équipe du centre Centre Lyon`);
    expect(mail?.text).toContain('valable 15 minutes');
    const url = /(https?:\/\/\S+\/connexion\/lien\/[A-Za-z0-9_-]{43})/.exec(mail?.text ?? '')?.[1];
    expect(url).toBeDefined();

    // The link signs them in (once), into the centre as staff.
    const recruit = new Browser(t.app);
    const signedIn = await followLink(recruit, linkPath(url as string));
    expect(signedIn.statusCode).toBe(303);
    const area = await recruit.get('/espace-centre');
    expect(area.body).toContain('Centre Lyon <span class="hint">(équipe)</span>');
    expect(area.body).toContain(`id="seance-${SESSIONS.lyonMar5.id}"`);
    expect((await recruit.get(linkPath(url as string))).body).not.toContain('Me connecter</button>');
    // …and as staff, not to the owner's parts.
    expect((await recruit.get(lyonPage)).statusCode).toBe(403);
  });

  it('says so when the email is already a member, changing nothing and sending nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const before = smtp.received.length;
    const members = await team();
    const again = await invite(owner, STAFF.toUpperCase());
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain(`${STAFF} fait déjà partie de l’équipe (équipe)`);
    const self = await invite(owner, OWNER);
    expect(self.statusCode).toBe(409);
    expect(self.body).toContain('(responsable)');
    await t.app.jobs.drain();
    expect(smtp.received.length).toBe(before);
    expect(await team()).toEqual(members);
  });

  it('refuses an address that is not one, next to the field (400)', async () => {
    const owner = await signIn(t.app, OWNER);
    const members = await team();
    const res = await invite(owner, 'pas une adresse');
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<span class="field-error" id="email-error">Saisissez une adresse e-mail complète');
    expect(res.body).toContain('value="pas une adresse"');
    expect(await team()).toEqual(members);
  });

  it('removes a member: their open sessions lose the centre at once, on another instance too', async () => {
    const db = t.app.database.db;
    await grantRole(db, 'partant@centre-lyon.example', 'staff', CENTRES.lyon.id);
    // Signed in on the other instance, working there.
    const leaving = await signIn(other.app, 'partant@centre-lyon.example');
    const before = await leaving.get('/espace-centre');
    expect(before.body).toContain(`id="seance-${SESSIONS.lyonMar5.id}"`);
    const token = Browser.token(before.body);

    const owner = await signIn(t.app, OWNER);
    const page = await owner.get(lyonPage);
    const id = await userId('partant@centre-lyon.example');
    const removed = await owner.post(`${lyonPage}/${id}/retirer`, { _csrf: Browser.token(page.body) });
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe(`${lyonPage}?retire=1`);
    const after = await owner.get(`${lyonPage}?retire=1`);
    expect(after.body).toContain('Membre retiré');
    expect(after.body).not.toContain('partant@centre-lyon.example');
    expect(await team()).not.toHaveProperty('partant@centre-lyon.example');

    // Still signed in on the other instance, but no longer of the centre.
    const now = await leaving.get('/espace-centre');
    expect(now.statusCode).toBe(200);
    expect(now.body).toContain('rattaché à aucun centre');
    expect(now.body).not.toContain(`id="seance-${SESSIONS.lyonMar5.id}"`);
    const places = await leaving.post(`/espace-centre/seances/${SESSIONS.lyonMar5.id}/places`, {
      _csrf: token,
      change: '-1',
    });
    expect(places.statusCode).toBe(404);
  });

  it('keeps the last owner: they cannot remove themselves; with a second owner, either may leave', async () => {
    const owner = await signIn(t.app, OWNER);
    const ownerId = await userId(OWNER);
    const page = await owner.get(lyonPage);
    const refused = await owner.post(`${lyonPage}/${ownerId}/retirer`, { _csrf: Browser.token(page.body) });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('seul responsable de ce centre');
    expect(await team()).toMatchObject({ [OWNER]: 'owner' });

    // A second owner, named by the command line's function; they remove the first, who loses the page.
    await grantRole(t.app.database.db, 'associe@centre-lyon.example', 'owner', CENTRES.lyon.id);
    const partner = await signIn(t.app, 'associe@centre-lyon.example');
    const partnerPage = await partner.get(lyonPage);
    const out = await partner.post(`${lyonPage}/${ownerId}/retirer`, { _csrf: Browser.token(partnerPage.body) });
    expect(out.statusCode).toBe(303);
    expect((await owner.get(lyonPage)).statusCode).toBe(404);
    // Back as the CLI makes owners; now the second owner leaves on their own, and lands on the dashboard.
    await grantRole(t.app.database.db, OWNER, 'owner', CENTRES.lyon.id);
    const partnerId = await userId('associe@centre-lyon.example');
    const leave = await partner.post(`${lyonPage}/${partnerId}/retirer`, {
      _csrf: Browser.token((await partner.get(lyonPage)).body),
    });
    expect(leave.statusCode).toBe(303);
    expect(leave.headers.location).toBe('/espace-centre');
    expect(await team()).toMatchObject({ [OWNER]: 'owner' });
    expect(await team()).not.toHaveProperty('associe@centre-lyon.example');
  });

  it('refuses a forged or missing anti-forgery token, changing nothing and sending nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const before = smtp.received.length;
    const members = await team();
    const forged = await owner.post(lyonPage, { _csrf: 'forged-token-forged-tok', email: 'x@example.org' });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    expect((await owner.post(lyonPage, { email: 'x@example.org' })).statusCode).toBe(403);
    const staffId = await userId(STAFF);
    expect((await owner.post(`${lyonPage}/${staffId}/retirer`, { _csrf: 'forged-token-forged-tok' })).statusCode).toBe(
      403,
    );
    expect((await owner.post(`${lyonPage}/${staffId}/retirer`, {})).statusCode).toBe(403);
    await t.app.jobs.drain();
    expect(smtp.received.length).toBe(before);
    expect(await team()).toEqual(members);
  });

  it('answers staff 403 for the page and its forms, with no link to it', async () => {
    const staff = await signIn(t.app, STAFF);
    const members = await team();
    const dashboard = await staff.get('/espace-centre');
    expect(dashboard.body).not.toContain(lyonPage);
    const token = Browser.token(dashboard.body);
    const page = await staff.get(lyonPage);
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('réservée au responsable du centre');
    expect(page.body).not.toContain(OWNER);
    expect((await staff.post(lyonPage, { _csrf: token, email: 'ami@example.org' })).statusCode).toBe(403);
    const ownerId = await userId(OWNER);
    expect((await staff.post(`${lyonPage}/${ownerId}/retirer`, { _csrf: token })).statusCode).toBe(403);
    expect(await team()).toEqual(members);
  });

  it('answers another centre’s owner 404 for the page and every post, however the ids are guessed', async () => {
    const paris = await signIn(t.app, PARIS_OWNER);
    const members = await team();
    const own = await paris.get(parisPage);
    expect(own.statusCode).toBe(200);
    expect(own.body).not.toContain(STAFF);
    const token = Browser.token(own.body);
    const staffId = await userId(STAFF);
    const unknown = '00000000-0000-4000-8000-00000000dead';
    const refusals = [
      await paris.get(lyonPage),
      await paris.get(`/espace-centre/centres/${unknown}/equipe`),
      await paris.post(lyonPage, { _csrf: token, email: 'intrus@example.org' }),
      await paris.post(`${lyonPage}/${staffId}/retirer`, { _csrf: token }),
      // Lyon's member under Paris's own page; ids of no one.
      await paris.post(`${parisPage}/${staffId}/retirer`, { _csrf: token }),
      await paris.post(`${parisPage}/${unknown}/retirer`, { _csrf: token }),
      await paris.post(`${parisPage}/pas-un-id/retirer`, { _csrf: token }),
    ];
    const bodies = new Set<string>();
    for (const res of refusals) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page introuvable');
      expect(res.body).not.toContain(STAFF);
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(1);
    expect(await team()).toEqual(members);
    expect(await team(CENTRES.paris.id)).toEqual({ [PARIS_OWNER]: 'owner' });
  });
});
