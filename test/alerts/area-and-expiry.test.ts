import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { purgeAlerts } from '../../src/alerts/purge.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { SESSIONS } from '../helpers/fixtures.js';
import { type AlertWorld, alertWorld, askAlert, confirmFrom, mailsTo } from './alert-helpers.js';

let w: AlertWorld;
afterEach(async () => w?.close());

const count = async () => {
  const rows = await w.app.database.db.execute<{ n: number }>(sql`select count(*)::int as n from alerts`);
  return Number(
    (rows as unknown as { rows?: { n: number }[] }).rows?.[0]?.n ?? (rows as unknown as { n: number }[])[0]?.n,
  );
};

describe('a person’s alerts in /mon-espace', () => {
  it('lists what each watches and until when, and removes one; another person’s id gives 404', async () => {
    w = await alertWorld();
    const email = 'ines@example.org';
    await askAlert(w.app, `/stages/${SESSIONS.lyonApr2Full.id}`, email);
    await askAlert(w.app, '/?city=Lyon&to=2030-04-30', email);
    await askAlert(w.app, '/?city=Paris', 'someone.else@example.org');
    await w.app.jobs.drain();
    await confirmFrom(w.app, mailsTo(w.smtp, email)[0]);

    const browser = await signIn(w.app, email, new Browser(w.app));
    const home = await browser.get('/mon-espace');
    expect(home.body).toContain('href="/mon-espace/alertes"');
    const page = await browser.get('/mon-espace/alertes');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Une place libre pour le stage des mardi 2 avril 2030 et mercredi 3 avril 2030 à Lyon');
    expect(page.body).toContain('Active, jusqu’au début du stage, le mardi 2 avril 2030');
    expect(page.body).toContain('Les nouveaux stages à Lyon, jusqu’au mardi 30 avril 2030');
    expect(page.body).toContain(
      'En attente de confirmation (lien envoyé par e-mail), jusqu’au mardi 30 avril 2030 inclus',
    );
    expect(page.body).not.toContain('Paris');

    const ids = [...page.body.matchAll(/action="\/mon-espace\/alertes\/([0-9a-f-]{36})\/suppression"/g)].map(
      (m) => m[1],
    );
    expect(ids).toHaveLength(2);
    const token = Browser.token(page.body);
    const removed = await browser.post(`/mon-espace/alertes/${ids[0]}/suppression`, { _csrf: token });
    expect(removed.statusCode).toBe(303);
    const after = await browser.get(removed.headers.location as string);
    expect(after.body).toContain('Alerte supprimée');
    expect(after.body.match(/Supprimer cette alerte/g)).toHaveLength(1);

    // Someone else's alert, or an id that is no alert: 404, nothing removed.
    const theirs = await w.app.database.db.execute<{ id: string }>(
      sql`select id from alerts where email_key = 'someone.else@example.org'`,
    );
    const theirId = ((theirs as unknown as { rows?: { id: string }[] }).rows ??
      (theirs as unknown as { id: string }[]))[0]?.id;
    expect((await browser.post(`/mon-espace/alertes/${theirId}/suppression`, { _csrf: token })).statusCode).toBe(404);
    expect((await browser.post('/mon-espace/alertes/pas-un-id/suppression', { _csrf: token })).statusCode).toBe(404);
    expect(await count()).toBe(2);
    // A forged removal does nothing.
    expect((await browser.post(`/mon-espace/alertes/${ids[1]}/suppression`, { _csrf: 'x' })).statusCode).toBe(403);
    expect(await count()).toBe(2);
  });
});

describe('alert expiry', () => {
  it('ends a session alert at its start, a search alert at its last day or after 3 months, and an unconfirmed one after 7 days', async () => {
    w = await alertWorld();
    const email = 'jules@example.org';
    await askAlert(w.app, `/stages/${SESSIONS.parisMar6Full.id}`, email); // starts 6 March 2030, 08:30 Paris
    await askAlert(w.app, '/?city=Lyon&to=2030-03-20', email);
    await askAlert(w.app, '/?city=Lyon', email); // no end date: 4 June 2030
    await w.app.jobs.drain();
    for (const mail of mailsTo(w.smtp, email)) await confirmFrom(w.app, mail);
    await askAlert(w.app, '/?city=Paris', 'never.confirms@example.org');
    await w.app.jobs.drain();
    expect(await count()).toBe(4);

    const db = w.app.database.db;
    expect(await purgeAlerts(db, new Date('2030-03-06T07:29:00Z'))).toBe(0);
    // The session began (07:30Z): its alert is deleted.
    expect(await purgeAlerts(db, new Date('2030-03-06T07:30:00Z'))).toBe(1);
    // Unconfirmed for 7 days.
    expect(await purgeAlerts(db, new Date('2030-03-11T09:01:00Z'))).toBe(1);
    // The search's last first day has passed.
    expect(await purgeAlerts(db, new Date('2030-03-20T23:59:00Z'))).toBe(0);
    expect(await purgeAlerts(db, new Date('2030-03-21T00:00:00Z'))).toBe(1);
    // Three months after it was made.
    expect(await purgeAlerts(db, new Date('2030-06-04T08:59:00Z'))).toBe(0);
    expect(await purgeAlerts(db, new Date('2030-06-04T09:00:00Z'))).toBe(1);
    expect(await count()).toBe(0);
  });

  it('ends a session alert when the centre cancels the session', async () => {
    w = await alertWorld();
    await askAlert(w.app, `/stages/${SESSIONS.lyonApr2Full.id}`, 'lou@example.org');
    await w.app.database.db.execute(
      sql`update stage_sessions set status = 'cancelled' where id = ${SESSIONS.lyonApr2Full.id}`,
    );
    expect(await purgeAlerts(w.app.database.db, w.clock.now())).toBe(1);
  });
});
