import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantRole } from '../../src/accounts/users.js';
import { listSubscriptions } from '../../src/webhooks/subscriptions.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { placesLeft } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startReceiver } from '../webhooks/receiver.js';

/*
 * The centre's webhooks page, its owner's alone: a subscription added through the page (its
 * secret shown once), a test sent and its delivery listed, the subscription deleted; staff are
 * refused (403), another centre's owner finds nothing (404) whatever id they post; and the role
 * matrix of docs/accounts.md, one test per cell.
 */

const clock = frozenClock(FIXTURE_NOW);
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const PARIS_OWNER = 'gerant@centre-paris.example';
let t: TestApp;
/** The same database with production settings (no WEBHOOK_ALLOW_PRIVATE). */
let strict: TestApp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
  strict = await buildTestApp({ database: t.db, clock });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, STAFF, 'staff', CENTRES.lyon.id);
  await grantRole(db, PARIS_OWNER, 'owner', CENTRES.paris.id);
});
afterAll(async () => {
  await strict.close();
  await t.close();
  await receiver.close();
});

const lyonPage = `/espace-centre/centres/${CENTRES.lyon.id}/webhooks`;
const parisPage = `/espace-centre/centres/${CENTRES.paris.id}/webhooks`;
const subscriptionsOf = (centreId: string) => listSubscriptions(t.app.database.db, { centreId });

/** Adds a subscription through the page, as its form posts it. */
async function add(browser: Browser, fields: Record<string, string | string[]>, path = lyonPage) {
  const page = await browser.get(path);
  expect(page.statusCode).toBe(200);
  return browser.post(path, { ...Browser.createForm(page.body), ...fields });
}

describe('the centre’s webhooks page', () => {
  it('adds a subscription (secret shown once), sends it a test, lists the delivery, and deletes it', async () => {
    const owner = await signIn(t.app, OWNER);
    const dashboard = await owner.get('/espace-centre');
    expect(dashboard.body).toContain(`href="${lyonPage}"`);

    const created = await add(owner, { url: receiver.url, events: ['reservation.created', 'session.changed'] });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const secret = /<code id="secret"[^>]*>(whsec_[^<]+)<\/code>/.exec(created.body)?.[1];
    expect(secret).toBeDefined();
    expect(created.body).toContain('elle ne sera plus jamais affichée');
    const [sub] = await subscriptionsOf(CENTRES.lyon.id);
    expect(sub?.url).toBe(receiver.url);
    expect(sub?.events).toEqual(['reservation.created', 'session.changed']);
    expect(sub?.secret).toBe(secret);

    const reloaded = await owner.get(lyonPage);
    expect(reloaded.statusCode).toBe(200);
    expect(reloaded.body).not.toContain(secret as string);
    expect(reloaded.body).not.toContain('whsec_');
    expect(reloaded.body).toContain(receiver.url);
    expect(reloaded.body).toContain('Actif.');
    expect(reloaded.body).toContain('Aucun envoi pour l’instant.');

    const id = sub?.id as string;
    const test = await owner.post(`${lyonPage}/${id}/test`, { _csrf: Browser.token(reloaded.body) });
    expect(test.statusCode).toBe(303);
    expect(test.headers.location).toBe(`${lyonPage}?test=1#webhook-${id}`);
    await t.app.jobs.drain();
    expect(receiver.events().map((e) => e.type)).toEqual(['webhook.test']);
    const after = await owner.get(`${lyonPage}?test=1`);
    expect(after.body).toContain('Test envoyé');
    expect(after.body).toContain('Derniers envois');
    expect(after.body).toMatch(/<td>Test<\/td><td>200<\/td>/);

    const deleted = await owner.post(`${lyonPage}/${id}/supprimer`, { _csrf: Browser.token(after.body) });
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe(`${lyonPage}?supprime=1`);
    expect(await subscriptionsOf(CENTRES.lyon.id)).toEqual([]);
    const gone = await owner.get(`${lyonPage}?supprime=1`);
    expect(gone.body).toContain('Webhook supprimé');
    expect(gone.body).not.toContain(receiver.url);
  });

  it.each([
    ['http://hooks.example.com/in', 'url', 'L’adresse doit commencer par https://.'],
    ['https://192.168.1.10/in', 'url', 'pas une adresse privée, locale ou de bouclage'],
    ['https://localhost/in', 'url', 'pas une adresse privée, locale ou de bouclage'],
    ['pas une adresse', 'url', 'Saisissez une adresse complète'],
  ])('refuses %s with a readable 400 next to the field, adding nothing', async (url, field, message) => {
    const owner = await signIn(strict.app, OWNER);
    const res = await add(owner, { url, events: 'reservation.created' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`<span class="field-error" id="${field}-error">`);
    expect(res.body).toContain(message);
    expect(res.body).toContain(`aria-invalid="true"`);
    // What was typed is kept, with the ticked event.
    expect(res.body).toContain(`value="${url}"`);
    expect(await subscriptionsOf(CENTRES.lyon.id)).toEqual([]);
  });

  it('refuses a subscription to no event, or to an event that does not exist', async () => {
    const owner = await signIn(strict.app, OWNER);
    const none = await add(owner, { url: 'https://hooks.example.com/in' });
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('<span class="field-error" id="events-error">Cochez au moins un événement.</span>');
    const unknown = await add(owner, { url: 'https://hooks.example.com/in', events: ['reservation.created', 'x.y'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('Cochez seulement les événements proposés.');
    expect(await subscriptionsOf(CENTRES.lyon.id)).toEqual([]);
  });

  it('refuses a forged or missing anti-forgery token, changing nothing', async () => {
    const owner = await signIn(t.app, OWNER);
    const forged = await owner.post(lyonPage, {
      _csrf: 'forged-token-forged-tok',
      url: receiver.url,
      events: 'session.changed',
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('rien n’a été modifié');
    expect((await owner.post(lyonPage, { url: receiver.url, events: 'session.changed' })).statusCode).toBe(403);
    expect(await subscriptionsOf(CENTRES.lyon.id)).toEqual([]);

    const created = await add(owner, { url: receiver.url, events: 'session.changed' });
    expect(created.statusCode).toBe(201);
    const [sub] = await subscriptionsOf(CENTRES.lyon.id);
    const id = sub?.id as string;
    const before = receiver.received.length;
    for (const action of ['supprimer', 'test']) {
      expect((await owner.post(`${lyonPage}/${id}/${action}`, { _csrf: 'forged-token-forged-tok' })).statusCode).toBe(
        403,
      );
      expect((await owner.post(`${lyonPage}/${id}/${action}`, {})).statusCode).toBe(403);
    }
    await t.app.jobs.drain();
    expect(receiver.received.length).toBe(before);
    expect((await subscriptionsOf(CENTRES.lyon.id)).map((s) => s.id)).toEqual([id]);
    const token = Browser.token((await owner.get(lyonPage)).body);
    expect((await owner.post(`${lyonPage}/${id}/supprimer`, { _csrf: token })).statusCode).toBe(303);
  });

  it('answers staff 403, for the page and its forms, and gives them no link to it', async () => {
    const owner = await signIn(t.app, OWNER);
    expect((await add(owner, { url: receiver.url, events: 'session.changed' })).statusCode).toBe(201);
    const [sub] = await subscriptionsOf(CENTRES.lyon.id);
    const id = sub?.id as string;

    const staff = await signIn(t.app, STAFF);
    const dashboard = await staff.get('/espace-centre');
    expect(dashboard.body).not.toContain(lyonPage);
    const token = Browser.token(dashboard.body);
    const page = await staff.get(lyonPage);
    expect(page.statusCode).toBe(403);
    expect(page.body).toContain('réservée au responsable du centre');
    expect(page.body).not.toContain(receiver.url);
    expect(
      (await staff.post(lyonPage, { _csrf: token, url: receiver.url, events: 'session.changed' })).statusCode,
    ).toBe(403);
    expect((await staff.post(`${lyonPage}/${id}/supprimer`, { _csrf: token })).statusCode).toBe(403);
    expect((await staff.post(`${lyonPage}/${id}/test`, { _csrf: token })).statusCode).toBe(403);
    expect((await subscriptionsOf(CENTRES.lyon.id)).map((s) => s.id)).toEqual([id]);

    const ownerToken = Browser.token((await owner.get(lyonPage)).body);
    expect((await owner.post(`${lyonPage}/${id}/supprimer`, { _csrf: ownerToken })).statusCode).toBe(303);
  });

  it('answers another centre’s owner 404 for the page and every post, however the ids are guessed', async () => {
    const owner = await signIn(t.app, OWNER);
    expect((await add(owner, { url: receiver.url, events: 'session.changed' })).statusCode).toBe(201);
    const [sub] = await subscriptionsOf(CENTRES.lyon.id);
    const id = sub?.id as string;

    const paris = await signIn(t.app, PARIS_OWNER);
    const own = await paris.get(parisPage);
    expect(own.statusCode).toBe(200);
    expect(own.body).not.toContain(receiver.url);
    const token = Browser.token(own.body);
    const unknown = '00000000-0000-4000-8000-00000000dead';
    const refusals = [
      await paris.get(lyonPage),
      await paris.get(`/espace-centre/centres/${unknown}/webhooks`),
      await paris.get('/espace-centre/centres/not-an-id/webhooks'),
      await paris.post(lyonPage, { _csrf: token, url: receiver.url, events: 'session.changed' }),
      await paris.post(`${lyonPage}/${id}/supprimer`, { _csrf: token }),
      await paris.post(`${lyonPage}/${id}/test`, { _csrf: token }),
      // Lyon's subscription id under Paris's own page; and ids that are no subscription's.
      await paris.post(`${parisPage}/${id}/supprimer`, { _csrf: token }),
      await paris.post(`${parisPage}/${id}/test`, { _csrf: token }),
      await paris.post(`${parisPage}/${unknown}/supprimer`, { _csrf: token }),
      await paris.post(`${parisPage}/not-an-id/test`, { _csrf: token }),
    ];
    const bodies = new Set<string>();
    for (const res of refusals) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Page introuvable');
      expect(res.body).not.toContain(receiver.url);
      bodies.add(res.body);
    }
    // One answer for a centre that exists and one that does not.
    expect(bodies.size).toBe(1);
    await t.app.jobs.drain();
    expect((await subscriptionsOf(CENTRES.lyon.id)).map((s) => s.id)).toEqual([id]);
    expect(await subscriptionsOf(CENTRES.paris.id)).toEqual([]);

    const ownerToken = Browser.token((await owner.get(lyonPage)).body);
    expect((await owner.post(`${lyonPage}/${id}/supprimer`, { _csrf: ownerToken })).statusCode).toBe(303);
  });
});

/** docs/accounts.md's matrix, "The centres' area": one test per cell. */
describe('who may do what in a centre’s area', () => {
  const session = SESSIONS.lyonMar5;
  async function takeAndGiveBack(email: string) {
    const browser = await signIn(t.app, email);
    const before = await placesLeft(t.app, session.id);
    const path = `/espace-centre/seances/${session.id}/places`;
    const token = Browser.token((await browser.get('/espace-centre')).body);
    expect((await browser.post(path, { _csrf: token, change: '-1' })).statusCode).toBe(303);
    expect(await placesLeft(t.app, session.id)).toBe(before - 1);
    expect((await browser.post(path, { _csrf: token, change: '1' })).statusCode).toBe(303);
    expect(await placesLeft(t.app, session.id)).toBe(before);
  }

  it.each([OWNER, STAFF])('sessions: %s sees the centre’s upcoming sessions', async (email) => {
    const page = await (await signIn(t.app, email)).get('/espace-centre');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`id="seance-${session.id}"`);
  });

  it.each([OWNER, STAFF])('places: %s takes and gives back a place', async (email) => {
    await takeAndGiveBack(email);
  });

  it('webhooks: the owner opens the page; staff are answered 403', async () => {
    expect((await (await signIn(t.app, OWNER)).get(lyonPage)).statusCode).toBe(200);
    expect((await (await signIn(t.app, STAFF)).get(lyonPage)).statusCode).toBe(403);
  });

  it.each([
    ['details', ''],
    ['team', '/equipe'],
    ['keys', '/cles'],
  ])('%s: the owner opens the page; staff are answered 403', async (_part, suffix) => {
    const path = `/espace-centre/centres/${CENTRES.lyon.id}${suffix}`;
    expect((await (await signIn(t.app, OWNER)).get(path)).statusCode).toBe(200);
    expect((await (await signIn(t.app, STAFF)).get(path)).statusCode).toBe(403);
  });
});
