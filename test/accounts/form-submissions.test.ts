import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pruneFormSubmissions,
  SUBMISSION_KEPT_MS,
  SUBMISSION_MISSING,
  writeOnce,
} from '../../src/accounts/form-submissions.js';
import { grantRole } from '../../src/accounts/users.js';
import { listApiKeys } from '../../src/admin/api-keys.js';
import { users } from '../../src/db/schema.js';
import { listSubscriptions } from '../../src/webhooks/subscriptions.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW } from '../helpers/fixtures.js';

/*
 * The areas' create forms sent twice (a double tap, a network retry, the answer page reloaded):
 * each form carries a one-time id spent with its write, so the same POST again writes nothing and
 * says so (the secret of a key or webhook is never shown again); a form without its id is refused
 * (400), writing nothing. Spent ids are forgotten after a day.
 */

const clock = frozenClock(FIXTURE_NOW); // Monday 4 March 2030
const OWNER = 'patron@centre-lyon.example';
const ADMIN = 'exploitant@stages.example';
let t: TestApp;
let owner: Browser;
let admin: Browser;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
  const db = t.app.database.db;
  await grantRole(db, OWNER, 'owner', CENTRES.lyon.id);
  await grantRole(db, ADMIN, 'admin');
  owner = await signIn(t.app, OWNER);
  admin = await signIn(t.app, ADMIN);
});
afterAll(() => t.close());

const NEW_SESSION = '/espace-centre/seances/nouvelle';
const KEYS = `/espace-centre/centres/${CENTRES.lyon.id}/cles`;
const WEBHOOKS = `/espace-centre/centres/${CENTRES.lyon.id}/webhooks`;
const OPERATOR_KEYS = '/administration/cles';
const HOOK_URL = 'https://logiciel.example.fr/webhooks';

const SESSION_FIELDS = {
  centreId: CENTRES.lyon.id,
  repeat: '2',
  every: '1',
  startTime: '08:30',
  endTime: '16:30',
  price: '199',
  capacity: '12',
  spots: '',
  declaredOn: '',
};

/** The sessions served on a day at the test's price. */
async function sessionsOn(day1: string) {
  await t.app.catalogue.refresh();
  const list = (await t.app.inject('/api/stages?dept=69&limit=100')).json().data as {
    day1: string;
    priceEuros: number;
  }[];
  return list.filter((s) => s.day1 === day1 && s.priceEuros === 199).length;
}

const lyonKeys = async () => (await listApiKeys(t.app.database.db, { centreId: CENTRES.lyon.id })).length;
const allKeys = async () => (await listApiKeys(t.app.database.db)).length;
const lyonHooks = async () => (await listSubscriptions(t.app.database.db, { centreId: CENTRES.lyon.id })).length;

describe('a new session’s form sent twice', () => {
  it('creates the sessions once, and the second send is told they were created already', async () => {
    const form = await owner.get(NEW_SESSION);
    const fields = { ...Browser.createForm(form.body), ...SESSION_FIELDS, day1: '2030-05-14' };
    expect(fields._submission).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const first = await owner.post(NEW_SESSION, fields);
    expect(first.statusCode, first.body).toBe(303);
    expect(first.headers.location).toBe('/espace-centre?cree=2');
    const second = await owner.post(NEW_SESSION, fields);
    expect(second.statusCode, second.body).toBe(303);
    expect(second.headers.location).toBe('/espace-centre?deja=1');
    expect(second.headers['cache-control']).toBe('no-store');
    const told = await owner.get(second.headers.location as string);
    expect(told.body).toContain('Ces stages étaient déjà créés : le formulaire a été envoyé deux fois');
    expect(await sessionsOn('2030-05-14')).toBe(1);
    expect(await sessionsOn('2030-05-21')).toBe(1);

    // The form shown again has a new id: the same fields from it are a new session, on purpose.
    const again = await owner.get(NEW_SESSION);
    expect(Browser.field(again.body, '_submission')).not.toBe(fields._submission);
    const third = await owner.post(NEW_SESSION, { ...fields, ...Browser.createForm(again.body) });
    expect(third.headers.location).toBe('/espace-centre?cree=2');
    expect(await sessionsOn('2030-05-14')).toBe(2);
  });

  it('sent at the same moment twice, creates the sessions once', async () => {
    const form = await owner.get(NEW_SESSION);
    const fields = { ...Browser.createForm(form.body), ...SESSION_FIELDS, repeat: '1', day1: '2030-06-04' };
    const answers = await Promise.all([owner.post(NEW_SESSION, fields), owner.post(NEW_SESSION, fields)]);
    expect(answers.map((a) => a.headers.location).sort()).toEqual(['/espace-centre?cree=1', '/espace-centre?deja=1']);
    expect(await sessionsOn('2030-06-04')).toBe(1);
  });

  it.each([
    ['missing', {}],
    ['malformed', { _submission: 'pas-un-identifiant' }],
  ])('refuses a form whose id is %s (400), creating nothing', async (_how, submission) => {
    const form = await owner.get(NEW_SESSION);
    const res = await owner.post(NEW_SESSION, {
      _csrf: Browser.token(form.body),
      ...submission,
      ...SESSION_FIELDS,
      day1: '2030-06-11',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Le stage n’a pas été créé');
    expect(res.body).toContain('Ce formulaire est incomplet (son numéro d’envoi manque ou est illisible)');
    // The form is shown again, with what was typed and a fresh id, to send again.
    expect(res.body).toContain('value="199"');
    expect(Browser.field(res.body, '_submission')).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await sessionsOn('2030-06-11')).toBe(0);
  });
});

describe('a centre’s API key form sent twice', () => {
  it('creates one key, and the second send is sent to the list, told the key is shown only once', async () => {
    const before = await lyonKeys();
    const page = await owner.get(KEYS);
    const fields = { ...Browser.createForm(page.body), name: 'Planning' };
    const first = await owner.post(KEYS, fields);
    expect(first.statusCode).toBe(201);
    const key = /<code id="key"[^>]*>(sk_[^<]+)<\/code>/.exec(first.body)?.[1] as string;
    expect(key).toMatch(/^sk_/);

    const second = await owner.post(KEYS, fields);
    expect(second.statusCode).toBe(303);
    expect(second.headers.location).toBe(`${KEYS}?deja=1`);
    expect(second.body).not.toContain(key);
    const told = await owner.get(second.headers.location as string);
    expect(told.statusCode).toBe(200);
    expect(told.body).toContain('Cette clé était déjà créée : le formulaire a été envoyé deux fois');
    expect(told.body).toContain('sa valeur n’est affichée qu’une fois');
    expect(told.body).not.toContain(key);
    expect(told.body).not.toContain('id="key"');
    expect(await lyonKeys()).toBe(before + 1);

    // The answer page's own form has a new id: another key, on purpose.
    const another = await owner.post(KEYS, { ...Browser.createForm(first.body), name: 'Planning' });
    expect(another.statusCode).toBe(201);
    expect(await lyonKeys()).toBe(before + 2);
  });

  it('sent at the same moment twice, creates one key', async () => {
    const before = await lyonKeys();
    const page = await owner.get(KEYS);
    const fields = { ...Browser.createForm(page.body), name: 'En double' };
    const answers = await Promise.all([owner.post(KEYS, fields), owner.post(KEYS, fields)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 303]);
    expect(await lyonKeys()).toBe(before + 1);
  });

  it('refuses a form without its id (400), creating nothing', async () => {
    const before = await lyonKeys();
    const page = await owner.get(KEYS);
    const res = await owner.post(KEYS, { _csrf: Browser.token(page.body), name: 'Sans numéro' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(SUBMISSION_MISSING);
    expect(res.body).not.toContain('id="key"');
    expect(await lyonKeys()).toBe(before);
  });
});

describe('a centre’s webhook form sent twice', () => {
  it('adds one webhook, and the second send is sent to the list, told the secret is shown only once', async () => {
    const before = await lyonHooks();
    const page = await owner.get(WEBHOOKS);
    const fields = { ...Browser.createForm(page.body), url: HOOK_URL, events: ['session.changed'] };
    const first = await owner.post(WEBHOOKS, fields);
    expect(first.statusCode).toBe(201);
    const secret = /<code id="secret"[^>]*>(whsec_[^<]+)<\/code>/.exec(first.body)?.[1] as string;
    expect(secret).toMatch(/^whsec_/);

    const second = await owner.post(WEBHOOKS, fields);
    expect(second.statusCode).toBe(303);
    expect(second.headers.location).toBe(`${WEBHOOKS}?deja=1`);
    const told = await owner.get(second.headers.location as string);
    expect(told.statusCode).toBe(200);
    expect(told.body).toContain('Ce webhook était déjà ajouté : le formulaire a été envoyé deux fois');
    expect(told.body).toContain('sa clé de signature n’est affichée qu’une fois');
    expect(told.body).not.toContain(secret);
    expect(told.body).not.toContain('id="secret"');
    expect(await lyonHooks()).toBe(before + 1);
  });

  it('refuses a form without its id (400), adding nothing', async () => {
    const before = await lyonHooks();
    const page = await owner.get(WEBHOOKS);
    const res = await owner.post(WEBHOOKS, {
      _csrf: Browser.token(page.body),
      url: HOOK_URL,
      events: 'session.changed',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Ce formulaire est incomplet');
    expect(res.body).not.toContain('id="secret"');
    expect(await lyonHooks()).toBe(before);
  });
});

describe('the operators’ API key form sent twice', () => {
  it('creates one key, and the second send is sent to the list, told the key is shown only once', async () => {
    const before = await allKeys();
    const page = await admin.get(OPERATOR_KEYS);
    const fields = { ...Browser.createForm(page.body), name: 'Tableau de bord', role: 'admin', centre: '' };
    const first = await admin.post(OPERATOR_KEYS, fields);
    expect(first.statusCode).toBe(201);
    const key = /<code class="break">(sk_[^<]+)<\/code>/.exec(first.body)?.[1] as string;
    expect(key).toMatch(/^sk_/);

    const second = await admin.post(OPERATOR_KEYS, fields);
    expect(second.statusCode).toBe(303);
    expect(second.headers.location).toBe(`${OPERATOR_KEYS}?deja=1`);
    const told = await admin.get(second.headers.location as string);
    expect(told.statusCode).toBe(200);
    expect(told.body).toContain('Cette clé était déjà créée : le formulaire a été envoyé deux fois');
    expect(told.body).not.toContain(key);
    expect(await allKeys()).toBe(before + 1);
  });

  it('refuses a form without its id (400), creating nothing', async () => {
    const before = await allKeys();
    const page = await admin.get(OPERATOR_KEYS);
    const res = await admin.post(OPERATOR_KEYS, {
      _csrf: Browser.token(page.body),
      name: 'Sans numéro',
      role: 'admin',
      centre: '',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('Ce formulaire est incomplet');
    expect(res.body).not.toContain('<code class="break">sk_');
    expect(await allKeys()).toBe(before);
  });
});

describe('the spent ids', () => {
  const userId = async () => {
    const [row] = await t.app.database.db.select({ id: users.id }).from(users).where(eq(users.email, OWNER));
    return row?.id as string;
  };

  it('are not spent by a write that fails: the same form can be sent again', async () => {
    const db = t.app.database.db;
    const submission = { id: 'AAAAAAAAAAAAAAAAAAAAAA', userId: await userId(), at: new Date(FIXTURE_NOW) };
    await expect(
      writeOnce(db, submission, async () => {
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await writeOnce(db, submission, async () => 'written')).toEqual({ written: true, value: 'written' });
    expect(await writeOnce(db, submission, async () => 'again')).toEqual({ written: false });
  });

  it('are forgotten a day after they were spent, by the accounts’ prune', async () => {
    const db = t.app.database.db;
    const submission = { id: 'BBBBBBBBBBBBBBBBBBBBBB', userId: await userId(), at: new Date(FIXTURE_NOW) };
    expect((await writeOnce(db, submission, async () => 1)).written).toBe(true);
    const at = new Date(FIXTURE_NOW).getTime();
    await pruneFormSubmissions(db, new Date(at + SUBMISSION_KEPT_MS - 60_000));
    expect((await writeOnce(db, submission, async () => 2)).written).toBe(false);
    expect(await pruneFormSubmissions(db, new Date(at + SUBMISSION_KEPT_MS + 60_000))).toBeGreaterThanOrEqual(1);
    expect((await writeOnce(db, submission, async () => 3)).written).toBe(true);
  });
});
