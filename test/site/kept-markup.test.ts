import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { keepMarkup } from '../../src/web/kept-markup.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { HOSTILE_CENTRE, HOSTILE_SESSIONS, SITE_CATALOGUE, SUMMER_SESSION } from '../helpers/site-fixtures.js';

/*
 * Pages insert markup kept from earlier renderings (session cards and facts, a centre's section, the
 * booking form, the header and footer, a session's JSON-LD: web/kept-markup.ts). Each page must be
 * byte for byte what rendering everything afresh gives, and a change must show at once.
 */

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

const clock = frozenClock(FIXTURE_NOW);
let t: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: SITE_CATALOGUE, clock });
  admin = (await keysFor(t.app, SESSIONS.lyonMar5.centreId)).admin;
});
afterAll(() => t.close());
afterEach(() => {
  keepMarkup(true);
  clock.set(FIXTURE_NOW);
});

// Each request gets an address of its own, so that the page cache never answers it: every page
// below is rendered.
let n = 0;
async function rendered(url: string): Promise<string> {
  const res = await t.app.inject({ url: `${url}${url.includes('?') ? '&' : '?'}_=${++n}`, headers: BROWSER });
  expect(res.statusCode, url).toBeLessThan(500);
  return res.body;
}

/** The page with every markup rendered afresh, then twice with kept markup (kept by the first, read by the second). */
async function afreshAndKept(url: string): Promise<{ afresh: string; kept: string[] }> {
  keepMarkup(false);
  const afresh = await rendered(url);
  keepMarkup(true);
  return { afresh, kept: [await rendered(url), await rendered(url)] };
}

const PAGES = [
  '/',
  '/?city=lyon',
  '/?city=villeurbanne&includeUnavailable=true',
  '/?dept=69&page=2',
  '/?dept=2A',
  '/?city=lyon&from=2030-03-01&to=2030-06-30&maxPrice=300&includeUnavailable=1', // every field of the form
  `/?city=${encodeURIComponent('<b>"Lyon" & l’Isle</b>')}&dept=69`, // markup typed in: escaped
  '/?city=lyon&page=2', // the form of page 1, kept
  '/?city=!!!&from=2030-99-01',
  `/stages/${SESSIONS.lyonMar5.id}`, // open: the booking form
  `/stages/${SESSIONS.parisMar6Full.id}`, // full: the alternatives
  `/stages/${SESSIONS.lyonPast.id}`, // past
  `/stages/${SESSIONS.reunionMar19.id}`, // overseas: its zone named
  `/stages/${HOSTILE_SESSIONS[0]?.id}`, // hostile names everywhere
  `/stages/${SUMMER_SESSION.id}`,
  `/centres/${HOSTILE_CENTRE.slug}`, // cards without their centre
  '/departements/69',
  '/departements/974',
  '/articles',
  '/nulle-part',
];

describe('kept markup', () => {
  it('gives every page byte for byte as rendered afresh', async () => {
    for (const url of PAGES) {
      const { afresh, kept } = await afreshAndKept(url);
      expect(kept[0], url).toBe(afresh);
      expect(kept[1], url).toBe(afresh);
    }
  });

  it('shows a change to a session at once, on its page and in every list', async () => {
    const id = SESSIONS.lyonMar5.id;
    const pages = [`/stages/${id}`, '/?city=lyon', '/departements/69'];
    for (const url of pages) expect(await rendered(url), url).toMatch(/239\s€/);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/sessions/${id}`,
      headers: { ...admin, 'content-type': 'application/json' },
      payload: { priceEuros: 233, spotsAvailable: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    for (const url of pages) {
      const { afresh, kept } = await afreshAndKept(url);
      expect(afresh, url).toMatch(/233\s€/);
      expect(afresh, url).not.toMatch(/239\s€/);
      expect(afresh, url).toContain('plus que 2 places');
      expect(kept[0], url).toBe(afresh);
      expect(kept[1], url).toBe(afresh);
    }
  });

  it('shows at once that a session has begun, then ended, its entry unchanged', async () => {
    const url = `/stages/${SESSIONS.stEtienneMar5.id}`;
    expect(await rendered(url)).toContain('Réserver une place');
    // Saint-Étienne, 5 March 2030 at 08:30 in Paris (07:30 UTC), over the next day at 16:30.
    for (const [now, shown] of [
      ['2030-03-05T10:00:00Z', 'inscriptions closes'],
      ['2030-03-07T10:00:00Z', 'stage terminé'],
    ] as const) {
      clock.set(now);
      const { afresh, kept } = await afreshAndKept(url);
      expect(afresh, now).toContain(shown);
      expect(kept[0], now).toBe(afresh);
      expect(kept[1], now).toBe(afresh);
    }
  });
});
