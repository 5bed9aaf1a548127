import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CANCELLATION_TERMS } from '../../src/reservations/cancellation-terms.js';
import { signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * A centre's cancellation and refund terms: written through the admin API (checked, in the history),
 * shown before booking, on the reservation, in the people's area and in the confirmation email, escaped
 * and with their line breaks; never in the public API; the default sentence when the centre wrote none.
 */

const clock = frozenClock(FIXTURE_NOW);
// Two lines, and markup that must come out as text.
const TERMS = 'Annulation gratuite jusqu’à 7 jours avant le stage.\nAprès : 50 € retenus <b>sur le prix</b>.';
const TERMS_HTML =
  'Annulation gratuite jusqu’à 7 jours avant le stage.<br/>Après : 50 € retenus &lt;b>sur le prix&lt;/b>.';
// The default as the pages write it (the apostrophes are plain text).
const lyon = CENTRES.lyon;
const paris = CENTRES.paris;

let t: TestApp;
let smtp: TestSmtpServer;
let admin: Record<string, string>;

/** The stored centre as an admin PUT body (the fields it writes). */
async function centreBody(id: string): Promise<Record<string, unknown>> {
  const stored = (await t.app.inject({ url: `/api/admin/centres/${id}`, headers: admin })).json() as Record<
    string,
    unknown
  >;
  const {
    id: _i,
    updatedAt: _u,
    approvalExpiresOn: _e,
    suspended: _s,
    suspendedAt: _a,
    suspensionReason: _r,
    ...body
  } = stored;
  return body;
}

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env: { SMTP_URL: smtp.url } });
  admin = (await keysFor(t.app, lyon.id)).admin;
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const put = (id: string, body: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: `/api/admin/centres/${id}`, headers: admin, payload: body });

describe('a centre’s cancellation terms', () => {
  it('are written and read back through the admin API, line breaks kept, and recorded in the history', async () => {
    const body = await centreBody(lyon.id);
    expect(body.cancellationTerms).toBeNull();
    const res = await put(lyon.id, { ...body, cancellationTerms: `  ${TERMS.replace('\n', '\r\n')}  ` });
    expect(res.statusCode).toBe(200);
    expect(res.json().cancellationTerms).toBe(TERMS);
    expect((await centreBody(lyon.id)).cancellationTerms).toBe(TERMS);
    // A write that does not name them keeps them (an import or a client from before the field).
    const { cancellationTerms: _, ...without } = body;
    expect((await put(lyon.id, { ...without, phone: '04 72 11 22 33' })).json().cancellationTerms).toBe(TERMS);
    const history = (
      await t.app.inject({ url: `/api/admin/history?centreId=${lyon.id}&entity=centre`, headers: admin })
    ).json() as { data: { field: string; newValue: string | null }[] };
    expect(history.data.find((h) => h.field === 'cancellationTerms')?.newValue).toBe(TERMS);
  });

  it('refuses terms too long, or not text, naming the field (400, problem+json), and changes nothing', async () => {
    const body = await centreBody(lyon.id);
    const tooLong = await put(lyon.id, { ...body, cancellationTerms: 'x'.repeat(2001) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.headers['content-type']).toContain('application/problem+json');
    expect(tooLong.body).toContain('cancellationTerms must be at most 2000 characters');
    const notText = await put(lyon.id, { ...body, cancellationTerms: 12 });
    expect(notText.statusCode).toBe(400);
    expect(notText.body).toContain('cancellationTerms must be a text');
    const control = await put(lyon.id, { ...body, cancellationTerms: 'a\u0007b' });
    expect(control.statusCode).toBe(400);
    expect(control.body).toContain('cancellationTerms');
    expect((await centreBody(lyon.id)).cancellationTerms).toBe(TERMS);
  });

  it('are in no public answer: the REST session (its centre object), a search, the centre’s page', async () => {
    for (const url of [`/api/stages/${SESSIONS.lyonMar5.id}`, '/api/stages?city=Lyon', `/centres/${lyon.slug}`]) {
      const res = await t.app.inject(url);
      expect(res.body).not.toContain('cancellationTerms');
      expect(res.body).not.toContain('50 € retenus');
    }
  });

  it('are shown, escaped, next to the booking form; the default sentence for a centre that wrote none', async () => {
    const page = (await t.app.inject(`/stages/${SESSIONS.lyonMar5.id}`)).body;
    const form = page.indexOf('<form class="booking"');
    expect(page).toContain(TERMS_HTML);
    expect(page.indexOf(TERMS_HTML)).toBeLessThan(form);
    expect(page).toContain('Conditions d’annulation et de remboursement');
    expect(page).not.toContain('<b>sur le prix</b>');
    const other = (await t.app.inject(`/stages/${SESSIONS.parisMar12.id}`)).body;
    expect(other).toContain(DEFAULT_CANCELLATION_TERMS);
  });

  it('are on the reservation’s page, in the people’s area and in the confirmation email', async () => {
    const res = await submit(t.app, SESSIONS.lyonMar5.id, await openForm(t.app, `/stages/${SESSIONS.lyonMar5.id}`));
    expect(res.statusCode).toBe(303);
    const privatePage = (await t.app.inject(privatePath(res.headers.location))).body;
    expect(privatePage).toContain(TERMS_HTML);
    const other = await submit(
      t.app,
      SESSIONS.parisMar12.id,
      await openForm(t.app, `/stages/${SESSIONS.parisMar12.id}`),
    );
    expect((await t.app.inject(privatePath(other.headers.location))).body).toContain(DEFAULT_CANCELLATION_TERMS);

    const me = await signIn(t.app, PERSON.email);
    const area = (await me.get('/mon-espace')).body;
    expect(area).toContain(TERMS_HTML);
    expect(area).toContain(DEFAULT_CANCELLATION_TERMS);

    await t.app.jobs.drain();
    const mails = smtp.received.filter((m) => m.to === PERSON.email && m.subject.startsWith('Réservation'));
    const lyonMail = mails.find((m) => m.subject.includes('Lyon'));
    const parisMail = mails.find((m) => m.subject.includes('Paris'));
    expect(lyonMail?.text).toContain(`Conditions d’annulation et de remboursement :\n${TERMS}\n`);
    expect(parisMail?.text).toContain(`Conditions d’annulation et de remboursement :\n${DEFAULT_CANCELLATION_TERMS}\n`);
    expect(paris.id).not.toBe(lyon.id);
  });
});
