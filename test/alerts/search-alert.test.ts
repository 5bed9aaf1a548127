import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { keysFor, newSession } from '../helpers/admin-keys.js';
import { CENTRES } from '../helpers/fixtures.js';
import { type AlertWorld, alertWorld, askAlert, confirmFrom, mailsTo } from './alert-helpers.js';

const SEARCH = '/?city=Lyon&from=2030-03-10&to=2030-04-30&maxPrice=250';
const person = 'dominique@example.org';

let w: AlertWorld;
afterEach(async () => w?.close());

describe('an alert on a search', () => {
  it('tells of a new matching session once, and never of one outside the search', async () => {
    w = await alertWorld();
    const keys = await keysFor(w.app, CENTRES.lyon.id);
    const home = await w.app.inject('/');
    expect(home.body).not.toContain('Prévenez-moi des nouvelles sessions');
    const results = await w.app.inject(SEARCH);
    expect(results.body).toContain('Prévenez-moi des nouvelles sessions');

    const asked = await askAlert(w.app, SEARCH, person);
    expect(asked.statusCode, asked.body).toBe(200);
    await w.app.jobs.drain();
    const confirmation = mailsTo(w.smtp, person)[0];
    expect(confirmation?.text).toMatch(
      /des nouveaux stages à Lyon, du dimanche 10 mars 2030 au mardi 30 avril 2030, à 250\s€ au plus/,
    );
    expect((await confirmFrom(w.app, confirmation)).statusCode).toBe(200);

    const put = (id: string, fields: Record<string, unknown>) =>
      w.app.inject({
        method: 'PUT',
        url: `/api/admin/sessions/${id}`,
        headers: keys.admin,
        payload: newSession(CENTRES.lyon.id, { courseNumber: `ALERT-${id.slice(0, 8)}`, ...fields }),
      });
    const matching = randomUUID();
    const tooDear = randomUUID();
    const tooLate = randomUUID();
    const elsewhere = randomUUID();
    for (const [id, fields] of [
      [matching, { day1: '2030-03-19', priceEuros: 229.5 }],
      [tooDear, { day1: '2030-03-20', priceEuros: 260 }],
      [tooLate, { day1: '2030-05-14', priceEuros: 200 }],
    ] as const)
      expect((await put(id, fields)).statusCode).toBe(201);
    const paris = await w.app.inject({
      method: 'PUT',
      url: `/api/admin/sessions/${elsewhere}`,
      headers: keys.admin,
      payload: newSession(CENTRES.paris.id, { courseNumber: 'ALERT-PARIS', day1: '2030-03-19', priceEuros: 199 }),
    });
    expect(paris.statusCode).toBe(201);
    await w.app.jobs.drain();

    const told = mailsTo(w.smtp, person).slice(1);
    expect(told).toHaveLength(1);
    expect(told[0]?.subject).toBe('Un nouveau stage correspond à votre recherche');
    expect(told[0]?.text).toContain(`https://stages.example.test/stages/${matching}`);
    expect(told[0]?.text).toMatch(/mardi 19 mars 2030 à Lyon \(Centre Lyon\), 229,50\s€/);
    for (const id of [tooDear, tooLate, elsewhere]) expect(told[0]?.text).not.toContain(id);
    expect(told[0]?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');

    // Later, places added to the same session: it is not news (never the same session twice).
    w.clock.set('2030-03-04T16:00:00Z');
    const more = await w.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${matching}/places`,
      headers: keys.admin,
      payload: { change: 2 },
    });
    expect(more.statusCode, more.body).toBe(200);
    await w.app.jobs.drain();
    expect(mailsTo(w.smtp, person)).toHaveLength(2);

    // The person's email and criteria reach no public answer nor log.
    for (const url of ['/api/stages?city=Lyon', `/api/stages/${matching}`, `/stages/${matching}`, SEARCH]) {
      const res = await w.app.inject(url);
      expect(res.body).not.toContain(person);
    }
    expect(w.logs.join('\n')).not.toContain(person);
  });
});
