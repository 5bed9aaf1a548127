import { afterEach, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { type AlertWorld, alertWorld, askAlert, book, cancel, confirmFrom, linkIn, mailsTo } from './alert-helpers.js';

// Paris, 12 March 2030: one place, taken below, so the session is full.
const paris = SESSIONS.parisMar12;
const WATCHER = 'Camille.Watcher@Example.org';
const watcher = 'camille.watcher@example.org';

let w: AlertWorld;
afterEach(async () => w?.close());

const alertMails = () => mailsTo(w.smtp, watcher);

describe('an alert on a full session', () => {
  it('confirms by a button, emails once per freed place within 6 hours, and stops with one POST', async () => {
    w = await alertWorld();
    const first = await book(w.app, paris.id, 'first@example.org');
    const page = await w.app.inject(`/stages/${paris.id}`);
    expect(page.body).toContain('Ce stage est complet');
    expect(page.body).toContain('Prévenez-moi si une place se libère');
    expect(page.body).toMatch(/<input[^>]*type="email"[^>]*autocomplete="email"/);

    const asked = await askAlert(w.app, `/stages/${paris.id}`, WATCHER);
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.body).toContain('Un e-mail de confirmation vient d’être envoyé');
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(1);
    const confirmation = alertMails()[0];
    expect(confirmation?.subject).toContain('Confirmez votre alerte');
    expect(confirmation?.text).toContain('si une place se libère pour le stage des mardi 12 mars 2030');
    const unsubscribeHeader = confirmation?.headers['list-unsubscribe'] ?? '';
    expect(unsubscribeHeader).toMatch(/^<https:\/\/stages\.example\.test\/alertes\/arret\/[A-Za-z0-9_-]{22}>$/);
    expect(confirmation?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(confirmation?.text).toContain(unsubscribeHeader.slice(1, -1));

    // Not confirmed yet: a place frees up, and nothing is sent.
    await cancel(w.app, first);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(1);
    const second = await book(w.app, paris.id, 'second@example.org');

    // A mail scanner fetching the link confirms nothing; the button does.
    const confirmPath = linkIn(confirmation, '/alertes/confirmer/');
    const fetched = await w.app.inject(confirmPath);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.body).toContain('Activer l’alerte');
    await cancel(w.app, second);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(1);
    const third = await book(w.app, paris.id, 'third@example.org');
    const confirmed = await confirmFrom(w.app, confirmation);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.body).toContain('Votre alerte est active');

    // A place frees up: one email, with the session page's link and a one-click unsubscribe.
    await cancel(w.app, third);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(2);
    const freed = alertMails()[1];
    expect(freed?.subject).toBe('Une place s’est libérée : stage du mardi 12 mars 2030 à Paris');
    expect(freed?.text).toContain(`https://stages.example.test/stages/${paris.id}`);
    expect(freed?.text).toContain('Premier arrivé, premier servi');
    expect(freed?.headers['list-unsubscribe']).toMatch(
      /^<https:\/\/stages\.example\.test\/alertes\/arret\/[A-Za-z0-9_-]{22}>$/,
    );
    expect(freed?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

    // Another place freed within 6 hours: no second email.
    w.clock.set('2030-03-04T14:59:00Z');
    const fourth = await book(w.app, paris.id, 'fourth@example.org');
    await cancel(w.app, fourth);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(2);

    // 6 hours after the email: the next freed place is told.
    w.clock.set('2030-03-04T15:00:00Z');
    const fifth = await book(w.app, paris.id, 'fifth@example.org');
    await cancel(w.app, fifth);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(3);

    // One POST of List-Unsubscribe=One-Click, cross-site, with no cookie and no form token, ends it.
    const unsubscribePath = new URL((alertMails()[2]?.headers['list-unsubscribe'] ?? '').slice(1, -1)).pathname;
    const stopped = await w.app.inject({
      method: 'POST',
      url: unsubscribePath,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://mail.example.net',
        'sec-fetch-site': 'cross-site',
      },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(stopped.statusCode, stopped.body).toBe(200);
    expect(stopped.body).toContain('Alerte arrêtée');
    w.clock.set('2030-03-05T15:00:00Z');
    const sixth = await book(w.app, paris.id, 'sixth@example.org');
    await cancel(w.app, sixth);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(3);
    // An older email's link leads to nothing any more.
    const again = await w.app.inject({
      method: 'POST',
      url: new URL(unsubscribeHeader.slice(1, -1)).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(again.statusCode).toBe(404);
    expect(again.body).toContain('Vous ne recevrez plus d’e-mail');

    // The email, and the links' secrets, reached no log line.
    const logged = w.logs.join('\n');
    expect(logged).not.toContain(watcher);
    expect(logged).toContain('"route":"/alertes/arret/:token"');
    expect(logged).not.toMatch(/\/alertes\/(confirmer|arret)\/[A-Za-z0-9_-]{22}/);
  });
});

describe('the one-click unsubscribe', () => {
  it('takes the multipart body some mail clients send, and refuses a POST without the one-click field', async () => {
    w = await alertWorld();
    await askAlert(w.app, `/stages/${SESSIONS.lyonApr2Full.id}`, watcher);
    await w.app.jobs.drain();
    const path = new URL((alertMails()[0]?.headers['list-unsubscribe'] ?? '').slice(1, -1)).pathname;
    const empty = await w.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('appuyez sur « Arrêter l’alerte »');
    const boundary = 'xYzZY';
    const multipart = await w.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
    });
    expect(multipart.statusCode, multipart.body).toBe(200);
    expect(multipart.body).toContain('Alerte arrêtée');
    // The confirmation link leads nowhere now.
    expect((await w.app.inject(linkIn(alertMails()[0], '/alertes/confirmer/'))).statusCode).toBe(410);
  });
});

describe('places added by the centre', () => {
  it('tell a full session’s alert; a change that gives no place tells nothing', async () => {
    w = await alertWorld();
    const full = SESSIONS.lyonApr2Full.id;
    const keys = await keysFor(w.app, CENTRES.lyon.id);
    await askAlert(w.app, `/stages/${full}`, watcher);
    await w.app.jobs.drain();
    await confirmFrom(w.app, alertMails()[0]);
    const patch = await w.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${full}`,
      headers: keys.partner,
      payload: { priceEuros: 219 },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(1);
    const added = await w.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${full}/places`,
      headers: keys.partner,
      payload: { change: 1 },
    });
    expect(added.statusCode, added.body).toBe(200);
    await w.app.jobs.drain();
    expect(alertMails()).toHaveLength(2);
    expect(alertMails()[1]?.text).toContain(`https://stages.example.test/stages/${full}`);
  });
});
