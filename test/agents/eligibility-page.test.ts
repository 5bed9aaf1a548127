import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/* The French page: the form, its answer with sources and sessions, its refusals next to the field. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterAll(async () => {
  await t.close();
});

async function openForm() {
  const res = await t.app.inject({ method: 'GET', url: '/peut-on-faire-un-stage' });
  const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
  const token = /name="formToken" value="([^"]+)"/.exec(res.body)?.[1] as string;
  return { res, cookie, token };
}

async function send(fields: Record<string, string>, form?: { cookie: string; token: string }) {
  const f = form ?? (await openForm());
  return t.app.inject({
    method: 'POST',
    url: '/peut-on-faire-un-stage',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: f.cookie },
    payload: new URLSearchParams({ formToken: f.token, ...fields }).toString(),
  });
}

describe('the eligibility page', () => {
  it('shows the form with every field labelled', async () => {
    const { res, token } = await openForm();
    expect(res.statusCode).toBe(200);
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(res.body).toContain('<h1>Puis-je faire un stage, et avant quand ?</h1>');
    for (const id of ['pointsLeft', 'lastCourseEndedOn', 'letter48nReceivedOn', 'probationStartedOn', 'near'])
      expect(res.body).toContain(`for="${id}"`);
  });

  it('answers with the deadline, the rules and their sources, and sessions that end in time', async () => {
    const res = await send({
      letter48nReceivedOn: '2029-11-06',
      probationStartedOn: '2028-06-17',
      pointsLeft: '3',
      near: '45,4',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Réponse : Oui');
    expect(res.body).toContain('terminé au plus tard le 6 mars 2030');
    expect(res.body).toContain('Code de la route, article R223-4');
    expect(res.body).toContain('remboursement de l’amende');
    expect(res.body).toContain(`/stages/${SESSIONS.lyonMar5.id}`);
    expect(res.body).not.toContain(`/stages/${SESSIONS.parisMar12.id}`);
    // What was typed stays in the form.
    expect(res.body).toMatch(/id="letter48nReceivedOn"[^>]*value="2029-11-06"/);
  });

  it('says when a course cannot count yet, and that a court-ordered one gives none', async () => {
    const soon = await send({ lastCourseEndedOn: '2029-09-01' });
    expect(soon.body).toContain('Pas maintenant');
    expect(soon.body).toContain('2 septembre 2030');
    const court = await send({ courtOrdered: 'true' });
    expect(court.body).toContain('Réponse : Non');
    expect(court.body).toContain('Code de procédure pénale, article 41-2');
  });

  it('puts a French message next to the field at fault', async () => {
    const future = await send({ letter48nReceivedOn: '2030-05-01' });
    expect(future.statusCode).toBe(400);
    expect(future.body).toContain('Cette date (1er mai 2030) est après aujourd’hui (4 mars 2030)');
    expect(future.body).toMatch(/id="letter48nReceivedOn"[^>]*aria-invalid="true"/);
    const points = await send({ pointsLeft: '14' });
    expect(points.statusCode).toBe(400);
    expect(points.body).toContain('Indiquez un nombre de points entre 0 et 12.');
    const si = await send({ letter48si: 'true', pointsLeft: '4' });
    expect(si.body).toContain('Avec la lettre 48SI, il ne reste aucun point');
    const place = await send({ near: 'Xyzzyqwville' });
    expect(place.body).toContain('Nous ne trouvons pas ce lieu');
    expect(place.body).not.toContain('Réponse :');
  });

  it('refuses a form without its cookie, and escapes what was typed', async () => {
    const { token } = await openForm();
    const res = await send({ near: '<script>x</script>' }, { cookie: '', token });
    expect(res.statusCode).toBe(403);
    expect(res.body).toContain('cookie de sécurité');
    expect(res.body).not.toContain('<script>x</script>');
    expect(res.body).toContain('&lt;script>x&lt;/script>');
  });
});
