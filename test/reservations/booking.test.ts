import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { afterAnswer, openForm, PERSON, placesLeft, privatePath, submit } from '../helpers/booking.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

let t: TestApp;
const lyon = SESSIONS.lyonMar5Early; // 8 places, Tuesday 5 March 2030

beforeEach(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterEach(async () => {
  await t.close();
});

async function reservationCount(): Promise<number> {
  const rows = await t.app.database.db.execute(sql`select count(*)::int as n from reservations`);
  const list = (rows as unknown as { rows?: { n: number }[] }).rows ?? (rows as unknown as { n: number }[]);
  return Number(list[0]?.n);
}

describe('booking a place from the session page', () => {
  it('shows the form on an open session, the same page for everyone that a shared cache may keep a few seconds, and no form on a full one', async () => {
    const res = await t.app.inject(`/stages/${lyon.id}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`action="/stages/${lyon.id}/reservation#reserver"`);
    // No per-visitor token nor cookie: a CDN may keep the page, and every visitor gets the same bytes.
    expect(res.body).not.toContain('name="formToken"');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=2, stale-while-revalidate=3');
    expect(res.headers['referrer-policy']).toBe('same-origin');
    const other = await t.app.inject(`/stages/${lyon.id}`);
    expect(other.body).toBe(res.body);
    expect(other.headers.etag).toBe(res.headers.etag);
    // A browser or a CDN asking again gets an empty 304 while nothing changed…
    const revalidated = await t.app.inject({
      url: `/stages/${lyon.id}`,
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    // …and the page again once a place is taken.
    expect((await submit(t.app, lyon.id, await openForm(t.app, `/stages/${lyon.id}`))).statusCode).toBe(303);
    const changed = await t.app.inject({
      url: `/stages/${lyon.id}`,
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(res.headers.etag);

    const full = await t.app.inject(`/stages/${SESSIONS.parisMar6Full.id}`);
    expect(full.body).toContain('Ce stage est complet');
    expect(full.body).not.toContain(`/stages/${SESSIONS.parisMar6Full.id}/reservation`);
    expect(full.headers['set-cookie']).toBeUndefined();
  });

  it('takes one place, answers 303 to the private page, which shows the reference, the centre and how to pay', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const res = await submit(t.app, lyon.id, form);
    expect(res.statusCode).toBe(303);
    const path = privatePath(res.headers.location);
    expect(await placesLeft(t.app, lyon.id)).toBe(7);

    const page = await t.app.inject({ url: path, headers: { cookie: form.cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['x-robots-tag']).toBe('noindex');
    expect(page.body).toMatch(/Référence <strong>SRP-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}<\/strong>/);
    expect(page.body).toContain('Place réservée, en attente de confirmation par le centre');
    expect(page.body).toContain('Aucun e-mail ne vous est envoyé');
    expect(page.body).toContain('Le paiement se fait auprès du centre');
    expect(page.body).toContain('Centre Lyon');
    expect(page.body).toContain('mardi 5 mars 2030');
    expect(page.body).toContain('+33 6 12 34 56 78');
    expect(page.body).toContain('Éloïse');
    expect(page.body).toContain(`https://stages.example.test${path}`);
    expect(page.body).toContain('Annuler ma réservation');
  });

  it('books once whatever happens next: two taps at once take one place, and a second tap finds the same reservation', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    // Two taps before any answer, from a browser that never booked here: one place, one reservation;
    // the other tap is told the email has one already (its link is in the email, and the first answer).
    const [a, b] = await Promise.all([submit(t.app, lyon.id, form), submit(t.app, lyon.id, form)]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([303, 409]);
    expect(await placesLeft(t.app, lyon.id)).toBe(7);
    expect(await reservationCount()).toBe(1);
    const first = a.statusCode === 303 ? a : b;
    // The first answer set this browser's cookie: sent again from it (back, then send), the form
    // leads to the same reservation.
    const again = await submit(t.app, lyon.id, afterAnswer(form, first));
    expect(again.statusCode).toBe(303);
    const pages = await Promise.all(
      [first, again].map((r) => t.app.inject(privatePath(r.headers.location)).then((p) => p.body)),
    );
    const refs = pages.map((p) => /SRP-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(p)?.[0]);
    expect(refs[0]).toBeDefined();
    expect(refs[1]).toBe(refs[0]);
    expect(pages[1]).toContain('Vous aviez déjà réservé ce stage');
    expect(await placesLeft(t.app, lyon.id)).toBe(7);
    expect(await reservationCount()).toBe(1);
  });

  it('the same browser much later does not reopen the reservation: the form cookie is no key to it', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const booked = await submit(t.app, lyon.id, form);
    expect(booked.statusCode).toBe(303);
    await t.app.database.db.execute(sql`update reservations set created_at = created_at - interval '1 hour'`);
    const later = await submit(t.app, lyon.id, afterAnswer(form, booked));
    expect(later.statusCode).toBe(409);
    expect(later.body).not.toMatch(/\/reservations\/[A-Za-z0-9_-]{22}/);
    expect(await reservationCount()).toBe(1);
  });

  it('the same address from another browser is one reservation, not two, and learns nothing of the first', async () => {
    const first = await openForm(t.app, `/stages/${lyon.id}`);
    expect((await submit(t.app, lyon.id, first)).statusCode).toBe(303);
    const other = await openForm(t.app, `/stages/${lyon.id}`);
    const res = await submit(t.app, lyon.id, other, { ...PERSON, email: 'ELOISE.NDIAYE@example.org' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Cette adresse e-mail a déjà une réservation sur ce stage');
    expect(res.body).not.toMatch(/SRP-[0-9A-Z]{4}-/);
    expect(res.body).not.toMatch(/\/reservations\/[A-Za-z0-9_-]{22}/);
    expect(await placesLeft(t.app, lyon.id)).toBe(7);
    expect(await reservationCount()).toBe(1);
  });

  it('cancelling from the private link gives the place back, once', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const path = privatePath((await submit(t.app, lyon.id, form)).headers.location);
    expect(await placesLeft(t.app, lyon.id)).toBe(7);
    const cancelForm = await openForm(t.app, path);
    const cancel = () =>
      t.app.inject({
        method: 'POST',
        url: `${path}/annulation`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: cancelForm.cookie,
          origin: 'https://stages.example.test',
        },
        payload: `formToken=${cancelForm.formToken}`,
      });
    const res = await cancel();
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(path);
    expect(await placesLeft(t.app, lyon.id)).toBe(8);
    const page = await t.app.inject(path);
    expect(page.body).toContain('Réservation annulée');
    expect(page.body).not.toContain('Annuler ma réservation');
    // Again (a double tap): nothing more is given back.
    expect((await cancel()).statusCode).toBe(303);
    expect(await placesLeft(t.app, lyon.id)).toBe(8);
    // The same address may book again once cancelled.
    expect((await submit(t.app, lyon.id, form)).statusCode).toBe(303);
    expect(await placesLeft(t.app, lyon.id)).toBe(7);
  });

  it('the last place: the session then shows "complet" and its alternatives instead of the form', async () => {
    const last = SESSIONS.parisMar12; // 1 place
    const a = await openForm(t.app, `/stages/${last.id}`);
    const b = await openForm(t.app, `/stages/${last.id}`);
    expect((await submit(t.app, last.id, a)).statusCode).toBe(303);
    const late = await submit(t.app, last.id, b, { ...PERSON, email: 'someone.else@example.org' });
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('Ce stage est complet');
    expect(late.body).toContain('Prochains stages près de Paris');
    expect(late.body).not.toContain('name="formToken"');
    expect(await placesLeft(t.app, last.id)).toBe(0);
    const api = (await t.app.inject(`/api/stages/${last.id}`)).json() as { status: string };
    expect(api.status).toBe('full');
    expect(await reservationCount()).toBe(1);
  });

  it('a private link that is not one is a readable 404', async () => {
    for (const path of ['/reservations/AAAAAAAAAAAAAAAAAAAAAA', '/reservations/short', '/reservations/%3Cscript%3E']) {
      const res = await t.app.inject(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body, path).toContain('Ce lien ne mène à aucune réservation');
    }
  });

  it('refuses past and cancelled sessions and unknown ids without storing anything', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const past = await submit(t.app, SESSIONS.lyonPast.id, form);
    expect(past.statusCode).toBe(409);
    expect(past.body).toContain('Ce stage est terminé');
    const unknown = await submit(t.app, '10000000-0000-4000-8000-999999999999', form);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('Ce stage n’existe pas ou plus');
    expect(await reservationCount()).toBe(0);
  });
});

describe('bad submissions: every field says what is wrong, nothing is stored', () => {
  const cases: [string, Record<string, string>, string, string][] = [
    ['no first name', { firstName: '' }, 'firstName', 'Indiquez votre prénom.'],
    ['digits in a name', { lastName: 'R2D2' }, 'lastName', 'ne peut contenir que des lettres'],
    ['markup in a name', { firstName: '<script>alert(1)</script>' }, 'firstName', 'ne peut contenir que des lettres'],
    ['a name too long', { lastName: 'A'.repeat(61) }, 'lastName', 'doit tenir en 60 caractères'],
    ['no email', { email: '' }, 'email', 'Indiquez votre adresse e-mail.'],
    ['an email without domain', { email: 'eloise@' }, 'email', 'Indiquez une adresse e-mail valide'],
    ['an email with spaces', { email: 'e loise@example.org' }, 'email', 'Indiquez une adresse e-mail valide'],
    ['no phone', { phone: '' }, 'phone', 'Indiquez votre numéro de téléphone mobile.'],
    ['a landline', { phone: '04 72 00 00 00' }, 'phone', 'Indiquez un numéro de mobile français'],
    ['a foreign mobile', { phone: '+44 7700 900123' }, 'phone', 'Indiquez un numéro de mobile français'],
    ['too few digits', { phone: '06 12 34 56' }, 'phone', 'Indiquez un numéro de mobile français'],
    ['no reason', { reason: '' }, 'reason', 'Choisissez le motif de votre stage.'],
    ['an unknown reason', { reason: 'constructor' }, 'reason', 'Choisissez le motif de votre stage.'],
    ['no consent', { consent: '' }, 'consent', 'Cochez la case'],
  ];
  it.each(cases)('%s', async (_label, change, field, message) => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const res = await submit(t.app, lyon.id, form, { ...PERSON, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('text/html');
    // In the summary, linked to the field, and next to the field, which is marked invalid.
    expect(res.body).toContain(`<a href="#${field}">`);
    expect(res.body).toContain(`id="${field}-error"`);
    expect(res.body).toContain(message.replace(/’/g, '’'));
    expect(res.body).toMatch(new RegExp(`aria-invalid="true" aria-describedby="[^"]*${field}-error"`));
    // What was typed is kept (escaped), except what was wrong with nothing typed.
    if (change.firstName === undefined) expect(res.body).toContain('value="Éloïse"');
    expect(res.body).not.toContain('<script>alert(1)</script>');
    expect(await placesLeft(t.app, lyon.id)).toBe(8);
    expect(await reservationCount()).toBe(0);
  });

  it('accepts French mobiles as people type them, overseas included, and keeps them in E.164', async () => {
    const numbers: [string, string][] = [
      ['07.12.34.56.78', '+33 7 12 34 56 78'],
      ['+33 (0)6 12 34 56 78'.replace('(0)', ''), '+33 6 12 34 56 78'],
      ['0033612345678', '+33 6 12 34 56 78'],
      ['0692 12 34 56', '+262 692 12 34 56'],
      ['+590 690 12 34 56', '+590 690 12 34 56'],
      ['0696-12-34-56', '+596 696 12 34 56'],
      ['+262 639 12 34 56', '+262 639 12 34 56'],
    ];
    for (const [i, [typed, shown]] of numbers.entries()) {
      const form = await openForm(t.app, `/stages/${lyon.id}`);
      const res = await submit(t.app, lyon.id, form, { ...PERSON, email: `p${i}@example.org`, phone: typed });
      expect(res.statusCode, typed).toBe(303);
      const page = await t.app.inject(privatePath(res.headers.location));
      expect(page.body, typed).toContain(shown);
    }
  });

  it('a form posted from another site, or from an opaque origin, is refused; the browser says where it comes from', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const refused: [string, Record<string, string | undefined>][] = [
      ['cross-site fetch metadata', { 'sec-fetch-site': 'cross-site' }],
      ['a sibling site', { 'sec-fetch-site': 'same-site' }],
      ['another origin, no fetch metadata', { 'sec-fetch-site': undefined, origin: 'https://evil.example' }],
      ['an opaque origin (a sandboxed frame), no fetch metadata', { 'sec-fetch-site': undefined, origin: 'null' }],
      ['fetch metadata wins over a same origin', { 'sec-fetch-site': 'cross-site', origin: BASE_URL }],
    ];
    for (const [label, headers] of refused) {
      const res = await submit(t.app, lyon.id, form, PERSON, headers);
      expect(res.statusCode, label).toBe(403);
      expect(res.body, label).toContain('envoyé depuis un autre site');
      // No form, and above all no cookie set for another site's post.
      expect(res.headers['set-cookie'], label).toBeUndefined();
      expect(res.body, label).not.toContain('name="firstName"');
    }
    expect(await reservationCount()).toBe(0);
    expect(await placesLeft(t.app, lyon.id)).toBe(8);
    // This site's page: fetch metadata, or only the Origin (a browser that predates fetch metadata).
    const fromHere = await submit(t.app, lyon.id, form, PERSON, { 'sec-fetch-site': undefined, origin: BASE_URL });
    expect(fromHere.statusCode).toBe(303);
    // The browser had no cookie: the answer sets the one that leads a resubmission to its reservation.
    const cookie = String(fromHere.headers['set-cookie']).split(';')[0] as string;
    expect(cookie).toMatch(/^__Host-srp-form=[A-Za-z0-9_-]{22}$/);
    const again = await submit(t.app, lyon.id, { ...form, cookie });
    expect(again.statusCode).toBe(303);
    expect(String(again.headers.location)).toContain('?deja=1');
    expect(await reservationCount()).toBe(1);
  });

  it('the honeypot: a filled hidden field is refused and nothing is stored', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const res = await submit(t.app, lyon.id, form, { ...PERSON, website: 'https://spam.example' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Cette demande n’a pas pu être enregistrée.');
    expect(await reservationCount()).toBe(0);
  });

  it('a body that is not a form, or too big, is a readable page', async () => {
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    const json = await t.app.inject({
      method: 'POST',
      url: `/stages/${lyon.id}/reservation`,
      headers: { 'content-type': 'application/json', cookie: form.cookie },
      payload: JSON.stringify(PERSON),
    });
    expect(json.statusCode).toBe(415);
    expect(json.headers['content-type']).toContain('text/html');
    expect(json.body).toContain('Ce formulaire doit être envoyé depuis la page du stage');
    const big = await submit(t.app, lyon.id, form, { ...PERSON, lastName: 'a'.repeat(20_000) });
    expect(big.statusCode).toBe(413);
    expect(big.body).toContain('Le formulaire envoyé est trop long');
    expect(await reservationCount()).toBe(0);
  });
});

describe('the reservation rate tier', () => {
  it('allows RATE_LIMIT_RESERVATIONS_PER_HOUR reservations per address, then a readable 429 page', async () => {
    await t.close();
    t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { RATE_LIMIT: 'on', RATE_LIMIT_RESERVATIONS_PER_HOUR: '2', RATE_LIMIT_ANONYMOUS: '1000' },
    });
    const book = async (n: number) =>
      submit(t.app, lyon.id, await openForm(t.app, `/stages/${lyon.id}`), { ...PERSON, email: `p${n}@example.org` });
    expect((await book(1)).statusCode).toBe(303);
    // A typo does not spend the budget: only submissions that would book count.
    const typo = submit(t.app, lyon.id, await openForm(t.app, `/stages/${lyon.id}`), { ...PERSON, email: 'x' });
    expect((await typo).statusCode).toBe(400);
    expect((await book(2)).statusCode).toBe(303);
    const third = await book(3);
    expect(third.statusCode).toBe(429);
    expect(third.headers['content-type']).toContain('text/html');
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(3000);
    expect(third.body).toContain('Trop de réservations ont été faites depuis votre connexion en une heure');
    expect(third.body).toMatch(/réessayez dans \d+ minutes/);
    expect(await placesLeft(t.app, lyon.id)).toBe(6);
  });
});
