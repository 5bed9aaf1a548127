import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { centreTeam } from '../../src/accounts/team.js';
import { grantRole } from '../../src/accounts/users.js';
import { listApiKeys } from '../../src/admin/api-keys.js';
import { frenchDate, frenchTime } from '../../src/web/format.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, PERSON, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * The centre's history page: a change made in the area and one made through the API with a partner
 * key both appear, newest first, with who made them and old → new; a reservation by its reference,
 * never the person; another centre's changes never; older changes a page at a time, by the API's
 * cursor; owner and staff may read it, another centre's member gets the 404 page.
 */

const clock = frozenClock(FIXTURE_NOW);
const OWNER = 'patron@centre-lyon.example';
const STAFF = 'equipe@centre-lyon.example';
const PARIS_OWNER = 'gerant@centre-paris.example';
const REUNION_OWNER = 'gerant@centre-reunion.example';
let t: TestApp;
let keys: Awaited<ReturnType<typeof keysFor>>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, STAFF, 'staff', CENTRES.lyon.id);
  await grantRole(db, PARIS_OWNER, 'owner', CENTRES.paris.id);
  await grantRole(db, REUNION_OWNER, 'owner', CENTRES.reunion.id);
  keys = await keysFor(t.app, CENTRES.lyon.id);
});
afterAll(() => t.close());

const historyOf = (centreId: string) => `/espace-centre/centres/${centreId}/historique`;
const lyonHistory = historyOf(CENTRES.lyon.id);

/** The entries of a history page, newest first: each one's id and its text without tags. */
function entries(html: string): { id: string; text: string }[] {
  return [...html.matchAll(/<li id="changement-([0-9a-f-]{36})"[^>]*>([\s\S]*?)<\/li>/g)].map((m) => ({
    id: m[1] as string,
    text: (m[2] as string)
      .replace(/<[^>]+>/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  }));
}

/** The centre's history as the API gives it to an operator, newest first, every page. */
async function apiHistory(centreId: string) {
  const res = await t.app.inject({ url: `/api/admin/history?centreId=${centreId}&limit=500`, headers: keys.admin });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: string; at: string; entity: string; field: string; actor: { kind: string } }[];
}

const apiPlaces = (sessionId: string, change: number, headers: Record<string, string>) =>
  t.app.inject({ method: 'POST', url: `/api/admin/sessions/${sessionId}/places`, headers, payload: { change } });

const timeIn = (timeZone: string, at: string) =>
  new Intl.DateTimeFormat('fr-FR', {
    timeZone,
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  }).format(new Date(at));

describe('the centre’s history page', () => {
  it('shows a change made in the area and one made with a partner key, newest first, with who and old → new', async () => {
    const owner = await signIn(t.app, OWNER);
    const dashboard = await owner.get('/espace-centre');
    expect(dashboard.body).toContain(`href="${lyonHistory}"`);

    const id = SESSIONS.lyonMar5.id;
    const tapped = await owner.post(`/espace-centre/seances/${id}/places`, {
      _csrf: Browser.token(dashboard.body),
      change: '-1',
    });
    expect(tapped.statusCode).toBe(303);
    expect((await apiPlaces(id, -1, keys.partner)).statusCode).toBe(200);
    // Another centre's change, made at the same time, never shows here.
    expect((await apiPlaces(SESSIONS.parisMar12.id, -1, keys.admin)).statusCode).toBe(200);

    const page = await owner.get(lyonHistory);
    expect(page.statusCode).toBe(200);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('Historique de Centre Lyon');
    const shown = entries(page.body);
    const api = await apiHistory(CENTRES.lyon.id);
    expect(shown.map((e) => e.id)).toEqual(api.map((e) => e.id));
    expect(shown).toHaveLength(2);
    // The page's no-break spaces read as spaces once the text is flattened.
    const session = `Stage du ${frenchDate('2030-03-05')}, ${frenchTime('08:30')}`.replace(/\s+/g, ' ');
    const [byKey, byOwner] = shown;
    expect(byKey?.text).toContain(`${session} · places libres : 2 → 1`);
    expect(byKey?.text).toContain('par la clé d’API « centre lyon »');
    expect(byOwner?.text).toContain(`${session} · places libres : 3 → 2`);
    expect(byOwner?.text).toContain(`par ${OWNER}`);
    // When, in the centre's zone (Lyon: Paris time).
    expect(byKey?.text).toContain(timeIn('Europe/Paris', api[0]?.at as string));

    const paris = await apiHistory(CENTRES.paris.id);
    expect(paris.length).toBeGreaterThan(0);
    for (const e of paris) expect(page.body).not.toContain(e.id);
    expect(page.body).not.toContain(frenchDate('2030-03-12'));
  });

  it('names a reservation by its reference, never the person who booked', async () => {
    const id = SESSIONS.lyonMar5Early.id;
    const form = await openForm(t.app, `/stages/${id}`);
    expect((await submit(t.app, id, form)).statusCode).toBe(303);
    const listed = await t.app.inject({ url: `/api/admin/reservations?sessionId=${id}`, headers: keys.partner });
    const [reservation] = listed.json().data as { id: string; reference: string }[];
    const owner = await signIn(t.app, OWNER);
    const bookings = await owner.get(`/espace-centre/seances/${id}`);
    const confirmed = await owner.post(`/espace-centre/reservations/${reservation?.id}`, {
      _csrf: Browser.token(bookings.body),
      action: 'confirmer',
    });
    expect(confirmed.statusCode).toBe(303);

    const page = await owner.get(lyonHistory);
    const [newest] = entries(page.body);
    expect(newest?.text).toContain(`Réservation ${reservation?.reference} · état : en attente → confirmée`);
    expect(newest?.text).toContain(`par ${OWNER}`);
    for (const personal of [PERSON.firstName, PERSON.lastName, PERSON.email, PERSON.phone])
      expect(page.body).not.toContain(personal);
  });

  it('says each change’s time in the centre’s own zone (Réunion)', async () => {
    const { admin } = keys;
    expect((await apiPlaces(SESSIONS.reunionMar19.id, -1, admin)).statusCode).toBe(200);
    const [change] = await apiHistory(CENTRES.reunion.id);
    const page = await (await signIn(t.app, REUNION_OWNER)).get(historyOf(CENTRES.reunion.id));
    expect(page.statusCode).toBe(200);
    const reunion = timeIn('Indian/Reunion', change?.at as string);
    expect(reunion).not.toBe(timeIn('Europe/Paris', change?.at as string));
    expect(entries(page.body)[0]?.text).toContain(reunion);
    expect(entries(page.body)[0]?.text).toContain('par la clé d’API « ops »');
  });

  it('is open to owner and staff of the centre; another centre’s member or an unknown id gets the 404 page', async () => {
    const staff = await signIn(t.app, STAFF);
    expect((await staff.get('/espace-centre')).body).toContain(`href="${lyonHistory}"`);
    const page = await staff.get(lyonHistory);
    expect(page.statusCode).toBe(200);
    expect(entries(page.body).length).toBeGreaterThan(0);

    const parisOwner = await signIn(t.app, PARIS_OWNER);
    for (const path of [
      lyonHistory,
      historyOf('00000000-0000-4000-8000-0000000000ff'),
      historyOf('not-a-centre'),
      historyOf(CENTRES.reunion.id),
    ]) {
      const refused = await parisOwner.get(path);
      expect(refused.statusCode, path).toBe(404);
      expect(refused.body).toContain('Page introuvable');
      expect(refused.body).not.toContain('changement-');
    }
    expect((await parisOwner.get('/espace-centre')).body).not.toContain(`href="${lyonHistory}"`);

    const anonymous = await t.app.inject({ url: lyonHistory });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/connexion');
  });

  it('pages older changes by the API’s cursor: every change once, newest first', async () => {
    const id = SESSIONS.lyonMar5Early.id;
    for (let i = 0; i < 30; i++) {
      expect((await apiPlaces(id, -1, keys.partner)).statusCode).toBe(200);
      expect((await apiPlaces(id, 1, keys.partner)).statusCode).toBe(200);
    }
    const api = await apiHistory(CENTRES.lyon.id);
    expect(api.length).toBeGreaterThan(60);

    const owner = await signIn(t.app, OWNER);
    const seen: string[] = [];
    let path: string | undefined = lyonHistory;
    let pages = 0;
    while (path) {
      const page = await owner.get(path);
      expect(page.statusCode).toBe(200);
      pages++;
      const shown = entries(page.body);
      expect(shown.length).toBeLessThanOrEqual(50);
      seen.push(...shown.map((e) => e.id));
      if (pages > 1) expect(page.body).toContain(`href="${lyonHistory}">Les plus récents`);
      const next = /href="([^"]+)">Changements plus anciens/.exec(page.body)?.[1];
      path = next?.replaceAll('&amp;', '&');
    }
    expect(pages).toBe(Math.ceil(api.length / 50) + (api.length % 50 === 0 ? 1 : 0));
    expect(seen).toEqual(api.map((e) => e.id));

    // A cursor that is not one: back to the newest changes.
    const wrong = await owner.get(`${lyonHistory}?avant=hier`);
    expect(wrong.statusCode).toBe(303);
    expect(wrong.headers.location).toBe(lyonHistory);
  });

  it('records a member invited and removed and a key created and revoked in the area, for the owner’s eyes', async () => {
    const owner = await signIn(t.app, OWNER);
    const team = `/espace-centre/centres/${CENTRES.lyon.id}/equipe`;
    const keysPage = `/espace-centre/centres/${CENTRES.lyon.id}/cles`;
    const before = (await apiHistory(CENTRES.lyon.id)).length;

    // A forged form changes nothing and records nothing.
    expect((await owner.post(team, { _csrf: 'forged-token-forged-tok', email: 'faux@example.org' })).statusCode).toBe(
      403,
    );
    expect((await owner.post(keysPage, { name: 'Forgée' })).statusCode).toBe(403);
    expect(await apiHistory(CENTRES.lyon.id)).toHaveLength(before);

    const invited = await owner.post(team, {
      _csrf: Browser.token((await owner.get(team)).body),
      email: 'nouvelle@centre-lyon.example',
    });
    expect(invited.statusCode).toBe(201);
    const member = (await centreTeam(t.app.database.db, CENTRES.lyon.id)).find(
      (m) => m.email === 'nouvelle@centre-lyon.example',
    );
    const removed = await owner.post(`${team}/${member?.userId}/retirer`, {
      _csrf: Browser.token((await owner.get(team)).body),
    });
    expect(removed.statusCode).toBe(303);
    const created = await owner.post(keysPage, {
      ...Browser.createForm((await owner.get(keysPage)).body),
      name: 'Logiciel de planning',
    });
    expect(created.statusCode).toBe(201);
    const secret = /<code id="key"[^>]*>(sk_[^<]+)<\/code>/.exec(created.body)?.[1] as string;
    // The secret part after sk_<16 hex>_ (base64url: it may itself hold underscores).
    const secretPart = /^sk_[0-9a-f]{16}_(.+)$/.exec(secret)?.[1] as string;
    expect(secretPart.length).toBeGreaterThan(20);
    const [key] = await listApiKeys(t.app.database.db, { centreId: CENTRES.lyon.id });
    expect(key?.name).toBe('Logiciel de planning');
    const revoked = await owner.post(`${keysPage}/${key?.id}/revoquer`, {
      _csrf: Browser.token((await owner.get(keysPage)).body),
    });
    expect(revoked.statusCode).toBe(303);

    const page = await owner.get(lyonHistory);
    const [keyRevoked, keyCreated, memberRemoved, memberInvited] = entries(page.body);
    expect(keyRevoked?.text).toContain('Clé d’API « Logiciel de planning » · révoquée : non → oui');
    expect(keyCreated?.text).toContain(
      'Clé d’API « Logiciel de planning » · création : nom : Logiciel de planning · rôle : partenaire (ce centre)',
    );
    expect(memberRemoved?.text).toContain('Membre nouvelle@centre-lyon.example · rôle : équipe → —');
    expect(memberInvited?.text).toContain('Membre nouvelle@centre-lyon.example · rôle : — → équipe');
    for (const e of [keyRevoked, keyCreated, memberRemoved, memberInvited]) expect(e?.text).toContain(`par ${OWNER}`);
    expect(page.body).not.toContain(secret);
    expect(page.body).not.toContain(secretPart);

    // The API gives the centre's partner key the same entries, each once, with the user as actor.
    const api = await t.app.inject({ url: '/api/admin/history?limit=4', headers: keys.partner });
    expect(api.statusCode).toBe(200);
    expect(
      api
        .json()
        .data.map((e: { entity: string; field: string; actor: { kind: string; label: string } }) => [
          e.entity,
          e.field,
          e.actor.kind,
          e.actor.label,
        ]),
    ).toEqual([
      ['api_key', 'revoked', 'user', OWNER],
      ['api_key', 'created', 'user', OWNER],
      ['member', 'role', 'user', OWNER],
      ['member', 'role', 'user', OWNER],
    ]);
    expect(api.json().data[0].entityId).toBe(key?.id);
    expect(api.json().data[3].entityId).toBe(member?.userId);
    expect(JSON.stringify(api.json())).not.toContain(secretPart);

    // Staff see the sessions' and bookings' changes, not the team's nor the keys' (the owner's parts).
    const staffPage = await (await signIn(t.app, STAFF)).get(lyonHistory);
    expect(staffPage.statusCode).toBe(200);
    const staffSees = entries(staffPage.body).map((e) => e.id);
    expect(staffSees.length).toBeGreaterThan(0);
    for (const e of entries(page.body).slice(0, 4)) expect(staffSees).not.toContain(e.id);
    expect(staffPage.body).not.toContain('nouvelle@centre-lyon.example');
    expect(staffPage.body).not.toContain('Logiciel de planning');
  });
});
