import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneSessions } from '../../src/accounts/sessions.js';
import { pruneSignInLinks } from '../../src/accounts/sign-in-links.js';
import { grantRole } from '../../src/accounts/users.js';
import { signInLinks, userSessions } from '../../src/db/schema.js';
import { Browser, followLink, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * Signing in by emailed link: the link read from a real SMTP server, the page that spends it only
 * with a button, one use, 15 minutes, the same answer for every email, sessions ended by signing
 * out (here or everywhere) and by disabling the user, and nothing but the session cookie opening
 * the area.
 */

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { SMTP_URL: smtp.url } });
  await grantRole(t.app.database.db, 'gerante@centre-lyon.example', 'owner', CENTRES.lyon.id);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const LINK = /https:\/\/stages\.example\.test(\/connexion\/lien\/[A-Za-z0-9_-]{43})/;

/** Asks /connexion for a link for `email`, as a browser would. */
async function ask(browser: Browser, email: string) {
  const form = await browser.get('/connexion');
  expect(form.statusCode).toBe(200);
  return browser.post('/connexion', { _csrf: Browser.token(form.body), email });
}

/** The link of the last email sent to `to`, once the outbox has sent it. */
async function mailedLink(to: string): Promise<string> {
  await t.app.jobs.drain();
  for (let i = 0; i < 50 && !smtp.received.some((m) => m.to === to); i++) await new Promise((r) => setTimeout(r, 20));
  const mail = smtp.received.filter((m) => m.to === to).at(-1);
  expect(mail?.subject).toContain('Votre lien de connexion');
  const path = LINK.exec(mail?.text ?? '')?.[1];
  expect(path, mail?.text).toBeDefined();
  return path as string;
}

describe('signing in by emailed link', () => {
  it('sends a link that opens a page whose button signs in, once', async () => {
    const browser = new Browser(t.app);
    const asked = await ask(browser, '  Gerante@Centre-Lyon.example ');
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('Vérifiez vos e-mails');
    expect(asked.headers['cache-control']).toBe('no-store');
    expect(asked.headers['x-robots-tag']).toBe('noindex');
    const path = await mailedLink('gerante@centre-lyon.example');

    // A mail scanner following the link spends nothing: the page only has a button.
    expect((await new Browser(t.app).get(path)).statusCode).toBe(200);
    const signedIn = await followLink(browser, path);
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/espace-centre');
    const cookie = String(signedIn.headers['set-cookie']);
    expect(cookie).toMatch(
      /^__Host-srp-session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure$/,
    );

    const area = await browser.get('/espace-centre');
    expect(area.statusCode).toBe(200);
    expect(area.body).toContain('gerante@centre-lyon.example');
    expect(area.body).toContain(CENTRES.lyon.name);
    expect(area.headers['cache-control']).toBe('no-store');
    expect(area.headers['access-control-allow-origin']).toBeUndefined();

    // Spent: a second press, in this browser or another, signs nobody in.
    const replay = await browser.post(path, { _csrf: Browser.token((await browser.get('/espace-centre')).body) });
    expect(replay.statusCode).toBe(410);
    expect((await t.app.inject(path)).statusCode).toBe(410);
    // Only its hash is stored.
    const rows = await t.app.database.db.select().from(signInLinks);
    expect(JSON.stringify(rows)).not.toContain(path.split('/').at(-1));
  });

  it('answers an unknown email exactly as a known one, and sends it a link too', async () => {
    const known = await ask(new Browser(t.app), 'gerante@centre-lyon.example');
    const unknown = await ask(new Browser(t.app), 'personne@inconnu.example');
    expect(unknown.statusCode).toBe(known.statusCode);
    expect(unknown.body).toBe(known.body);
    await mailedLink('personne@inconnu.example');
  });

  it('refuses a link after 15 minutes', async () => {
    const browser = new Browser(t.app);
    await ask(browser, 'gerante@centre-lyon.example');
    const path = await mailedLink('gerante@centre-lyon.example');
    clock.set(new Date(Date.parse(FIXTURE_NOW) + 15 * 60_000 + 1000).toISOString());
    try {
      const page = await browser.get(path);
      expect(page.statusCode).toBe(410);
      expect(page.body).toContain('a expiré');
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('names a malformed email, and refuses a form without its anti-forgery token', async () => {
    const browser = new Browser(t.app);
    const bad = await ask(browser, 'pas-une-adresse');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Indiquez une adresse e-mail complète');
    const sent = smtp.received.length;
    const forged = await new Browser(t.app).post('/connexion', {
      _csrf: 'forged',
      email: 'gerante@centre-lyon.example',
    });
    expect(forged.statusCode).toBe(403);
    const crossSite = await browser.post(
      '/connexion',
      { _csrf: Browser.token(bad.body), email: 'gerante@centre-lyon.example' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    await t.app.jobs.drain();
    expect(smtp.received.length).toBe(sent);
  });

  it('limits the links one email may be sent in an hour', async () => {
    const limited = await buildTestApp({
      database: t.db,
      clock,
      env: { RATE_LIMIT: 'on', RATE_LIMIT_SIGN_IN_PER_EMAIL_PER_HOUR: '2' },
    });
    try {
      const browser = new Browser(limited.app);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const form = await browser.get('/connexion');
        statuses.push(
          (await browser.post('/connexion', { _csrf: Browser.token(form.body), email: 'flood@example.org' }))
            .statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('limits the links one address may ask for in an hour, whatever the emails', async () => {
    const limited = await buildTestApp({
      database: t.db,
      clock,
      env: { RATE_LIMIT: 'on', RATE_LIMIT_SIGN_IN_PER_HOUR: '2' },
    });
    try {
      const browser = new Browser(limited.app);
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const form = await browser.get('/connexion');
        statuses.push(
          (await browser.post('/connexion', { _csrf: Browser.token(form.body), email: `n${i}@example.org` }))
            .statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('forgets links a day after they expired, and sessions that can no longer be used', async () => {
    const db = t.app.database.db;
    await signIn(t.app, 'gerante@centre-lyon.example');
    const later = new Date(Date.parse(FIXTURE_NOW) + 8 * 86_400_000);
    expect(await pruneSignInLinks(db, later)).toBeGreaterThan(0);
    expect(await db.select().from(signInLinks)).toEqual([]);
    expect(await pruneSessions(db, later)).toBeGreaterThan(0);
    expect(await db.select().from(userSessions)).toEqual([]);
  });
});

describe('a signed-in session', () => {
  it('opens nothing without its cookie: API keys and agent tokens are sent to sign in', async () => {
    const { admin } = await keysFor(t.app, CENTRES.lyon.id);
    for (const headers of [
      admin,
      { authorization: 'Bearer not-a-session' },
      { cookie: '__Host-srp-session=forged.value' },
    ]) {
      const res = await t.app.inject({ url: '/espace-centre', headers });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/connexion');
    }
  });

  it('ends with sign-out here, or everywhere', async () => {
    const email = 'gerante@centre-lyon.example';
    const first = await signIn(t.app, email);
    const second = await signIn(t.app, email);
    const page = await first.get('/espace-centre');
    const out = await first.post('/deconnexion', { _csrf: Browser.token(page.body) });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/connexion?deconnecte=1');
    expect((await first.get('/espace-centre')).statusCode).toBe(303);
    expect((await second.get('/espace-centre')).statusCode).toBe(200);

    const third = await signIn(t.app, email);
    const everywhere = await second.post('/deconnexion', {
      _csrf: Browser.token((await second.get('/espace-centre')).body),
      partout: '1',
    });
    expect(everywhere.statusCode).toBe(303);
    expect((await third.get('/espace-centre')).statusCode).toBe(303);
  });

  it('ends after 12 hours idle or 7 days in all', async () => {
    const browser = await signIn(t.app, 'gerante@centre-lyon.example');
    const start = Date.parse(FIXTURE_NOW);
    try {
      // Used every 11 hours, it lasts the week…
      for (let hour = 11; hour < 7 * 24; hour += 11) {
        clock.set(new Date(start + hour * 3_600_000).toISOString());
        expect((await browser.get('/espace-centre')).statusCode, `hour ${hour}`).toBe(200);
      }
      // …and not a minute more.
      clock.set(new Date(start + 7 * 86_400_000 + 60_000).toISOString());
      expect((await browser.get('/espace-centre')).statusCode).toBe(303);

      const idle = await signIn(t.app, 'gerante@centre-lyon.example');
      clock.set(new Date(start + 7 * 86_400_000 + 60_000 + 12 * 3_600_000 + 60_000).toISOString());
      expect((await idle.get('/espace-centre')).statusCode).toBe(303);
    } finally {
      clock.set(FIXTURE_NOW);
    }
  });

  it('stops at once on another instance when its user is disabled, and the user cannot sign in again', async () => {
    const email = 'staff@centre-lyon.example';
    await grantRole(t.app.database.db, email, 'staff', CENTRES.lyon.id);
    const other = await buildTestApp({ database: t.db, clock });
    try {
      const browser = await signIn(t.app, email, new Browser(other.app));
      expect((await browser.get('/espace-centre')).statusCode).toBe(200);
      const { disableUser } = await import('../../src/accounts/users.js');
      expect(await disableUser(t.app.database.db, email, clock.now())).toBe(true);
      expect((await browser.get('/espace-centre')).statusCode).toBe(303);
      const { sendSignInLink } = await import('../../src/accounts/sign-in.js');
      const url = await sendSignInLink(t.app.database.db, email, clock.now(), {
        baseUrl: t.app.config.publicBaseUrl,
        platformName: 'x',
        mail: false,
      });
      const refused = await followLink(new Browser(t.app), new URL(url).pathname);
      expect(refused.statusCode).toBe(403);
      expect(refused.body).toContain('Ce compte est désactivé');
    } finally {
      await other.close();
    }
    const sessions = await t.app.database.db
      .select()
      .from(userSessions)
      .where(eq(userSessions.userId, userSessions.userId));
    expect(JSON.stringify(sessions)).not.toContain('staff@');
  });
});
