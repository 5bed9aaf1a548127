import { afterEach, describe, expect, it } from 'vitest';
import { Browser, signIn } from '../helpers/accounts.js';
import { SESSIONS } from '../helpers/fixtures.js';
import { type AlertWorld, alertWorld, askAlert, mailsTo } from './alert-helpers.js';

let w: AlertWorld;
afterEach(async () => w?.close());

/** A search with a different maximum price each time: a different alert. */
const search = (i: number) => `/?city=Lyon&maxPrice=${200 + i}`;

/** Sends a page's alert form from a signed-in browser (its cookies: sign-in and form). */
async function askSignedIn(browser: Browser, pagePath: string, email: string) {
  const page = await browser.get(pagePath);
  const fields: Record<string, string> = { email };
  const form = /<form method="post" action="\/alertes"[^>]*>([\s\S]*?)<\/form>/.exec(page.body)?.[1] ?? '';
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g))
    fields[m[1] as string] = m[2] as string;
  return browser.post('/alertes', fields);
}

describe('alert limits', () => {
  it('refuses an 11th running alert for one email with a clear message', async () => {
    w = await alertWorld();
    const browser = await signIn(w.app, 'lea@example.org', new Browser(w.app));
    for (let i = 0; i < 10; i++) {
      const res = await askSignedIn(browser, search(i), 'Lea@example.org');
      expect(res.statusCode, res.body).toBe(200);
      // Signed in with that address: it runs at once, and no email is sent.
      expect(res.body).toContain('Votre alerte est active');
    }
    const eleventh = await askSignedIn(browser, search(10), 'lea@example.org');
    expect(eleventh.statusCode).toBe(409);
    expect(eleventh.body).toContain('Cette adresse suit déjà 10 alertes, le maximum');
    // The same alert again is no new one.
    expect((await askSignedIn(browser, search(3), 'lea@example.org')).statusCode).toBe(200);
    await w.app.jobs.drain();
    expect(mailsTo(w.smtp, 'lea@example.org')).toEqual([]);
    const listed = await browser.get('/mon-espace/alertes');
    expect(listed.body.match(/Supprimer cette alerte/g)).toHaveLength(10);
  });

  it('sends at most 3 confirmation emails a day to one address, whatever the alerts', async () => {
    w = await alertWorld();
    const email = 'noe@example.org';
    for (let i = 0; i < 3; i++) expect((await askAlert(w.app, search(i), email)).statusCode).toBe(200);
    const fourth = await askAlert(w.app, `/stages/${SESSIONS.lyonApr2Full.id}`, email);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.body).toContain('Trois e-mails de confirmation ont déjà été envoyés à cette adresse aujourd’hui');
    // Asking the same alert again counts too: it would send a mail.
    expect((await askAlert(w.app, search(0), email)).statusCode).toBe(429);
    await w.app.jobs.drain();
    expect(mailsTo(w.smtp, email)).toHaveLength(3);
    // Another address is not held back; the next day, this one neither.
    expect((await askAlert(w.app, search(0), 'autre@example.org')).statusCode).toBe(200);
    w.clock.set('2030-03-05T09:01:00Z');
    expect((await askAlert(w.app, `/stages/${SESSIONS.lyonApr2Full.id}`, email)).statusCode).toBe(200);
  });

  it('answers the same for an address that has the alert already, and tells that address only', async () => {
    w = await alertWorld();
    const first = await askAlert(w.app, search(0), 'sam@example.org');
    const again = await askAlert(w.app, search(0), 'sam@example.org');
    const other = await askAlert(w.app, search(0), 'eve@example.org');
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    const body = (html: string) => html.replace(/[A-Za-z0-9_-]{22}/g, '');
    expect(body(again.body)).toBe(body(first.body));
    expect(body(other.body)).toBe(body(first.body));
  });

  it('has its own rate tier per address and per email: the 429 page says when to come back', async () => {
    w = await alertWorld({
      RATE_LIMIT: 'on',
      RATE_LIMIT_ALERTS_PER_HOUR: '4',
      RATE_LIMIT_ALERTS_PER_EMAIL_PER_HOUR: '2',
    });
    expect((await askAlert(w.app, search(0), 'a@example.org')).statusCode).toBe(200);
    expect((await askAlert(w.app, search(1), 'a@example.org')).statusCode).toBe(200);
    const byEmail = await askAlert(w.app, search(2), 'a@example.org');
    expect(byEmail.statusCode).toBe(429);
    expect(byEmail.body).toContain('Trop d’alertes ont été demandées depuis ce réseau ou pour cette adresse');
    expect(byEmail.headers['retry-after']).toBeDefined();
    // The address's budget counts every ask, the refused one too: this is its 4th, the last.
    expect((await askAlert(w.app, search(2), 'b@example.org')).statusCode).toBe(200);
    const byAddress = await askAlert(w.app, search(3), 'c@example.org');
    expect(byAddress.statusCode).toBe(429);
    // Sign-in links keep their own budget.
    const signIn = await new Browser(w.app).get('/connexion');
    expect(signIn.statusCode).toBe(200);
  });

  it('refuses a bad email, a search with no place and a forged form, each with its message and nothing stored', async () => {
    w = await alertWorld();
    const bad = await askAlert(w.app, search(0), 'pas-une-adresse');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Indiquez une adresse e-mail complète');
    expect(bad.body).toContain('name="maxPrice" value="200"');
    expect(bad.body).toContain('Cette alerte porte sur les nouveaux stages à Lyon');
    const forged = await w.app.inject({
      method: 'POST',
      url: '/alertes',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: 'city=Lyon&email=x%40example.org&formToken=AAAAAAAAAAAAAAAAAAAAAA',
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).toContain('aucune alerte n’a été créée');
    const browser = new Browser(w.app);
    await browser.get(search(0));
    const token = /name="formToken" value="([^"]+)"/.exec((await browser.get(search(0))).body)?.[1] ?? '';
    const noPlace = await browser.post('/alertes', { formToken: token, maxPrice: '200', email: 'x@example.org' });
    expect(noPlace.statusCode).toBe(400);
    expect(noPlace.body).toContain('une recherche qui donne une ville ou un département');
    const open = await browser.post('/alertes', {
      formToken: token,
      sessionId: SESSIONS.lyonMar5.id,
      email: 'x@example.org',
    });
    expect(open.statusCode).toBe(409);
    expect(open.body).toContain('Ce stage a des places');
    await w.app.jobs.drain();
    expect(w.smtp.received).toEqual([]);
  });
});
