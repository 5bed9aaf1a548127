import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * Rendered pages are kept while nothing they show can have changed: a page says which departments
 * it drew on, and a change elsewhere in France leaves it (and its entity tag) as it was. Issue 28:
 * every change anywhere used to render every page again.
 */

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let t: TestApp;
let admin: Record<string, string>;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
  admin = (await keysFor(t.app, CENTRES.lyon.id)).admin;
});
afterAll(() => t.close());

const parisSlug = () => t.app.catalogue.snapshot.centresById.get(CENTRES.paris.id)?.view.slug as string;
// A Paris session's page, the Paris department page, the Paris centre's page, a search of the department.
const parisPages = () => [
  `/stages/${SESSIONS.parisMar12.id}`,
  '/departements/75',
  `/centres/${parisSlug()}`,
  '/?dept=75',
];

async function tags(urls: string[]): Promise<string[]> {
  const tags: string[] = [];
  for (const url of urls) {
    const res = await t.app.inject({ url, headers: BROWSER });
    expect(res.statusCode, url).toBe(200);
    tags.push(res.headers.etag as string);
  }
  return tags;
}

async function setPrice(id: string, priceEuros: number): Promise<void> {
  const res = await t.app.inject({
    method: 'PATCH',
    url: `/api/admin/sessions/${id}`,
    headers: { ...admin, 'content-type': 'application/json' },
    payload: { priceEuros },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('pages kept across changes elsewhere', () => {
  it('keeps the pages about Paris after a change in the Rhône: same tag, a 304 to a browser asking again', async () => {
    const before = await tags(parisPages());
    const lyonBefore = await tags([`/stages/${SESSIONS.lyonMar5.id}`, '/departements/69']);
    await setPrice(SESSIONS.lyonMar5.id, 241);
    for (const [i, url] of parisPages().entries()) {
      const again = await t.app.inject({ url, headers: { ...BROWSER, 'if-none-match': before[i] as string } });
      expect(again.statusCode, url).toBe(304);
    }
    // The Rhône's own pages are rendered again, with the new price.
    const lyon = await t.app.inject({ url: `/stages/${SESSIONS.lyonMar5.id}`, headers: BROWSER });
    expect(lyon.headers.etag).not.toBe(lyonBefore[0]);
    expect(lyon.body).toMatch(/241\s€/);
    expect(await tags(['/departements/69'])).not.toEqual([lyonBefore[1]]);
  });

  it('renders them again after a change in Paris', async () => {
    const before = await tags(parisPages());
    await setPrice(SESSIONS.parisMar12.id, 263);
    const after = await tags(parisPages());
    for (const [i, url] of parisPages().entries()) expect(after[i], url).not.toBe(before[i]);
    const page = await t.app.inject({ url: `/stages/${SESSIONS.parisMar12.id}`, headers: BROWSER });
    expect(page.body).toMatch(/263\s€/);
  });

  it('renders a session page again when a session of its region, among its alternatives, changes', async () => {
    // A full Paris session offers the next ones nearby: a change to one of them reaches its page.
    const url = `/stages/${SESSIONS.parisMar6Full.id}`;
    const [before] = await tags([url]);
    await setPrice(SESSIONS.parisMar12.id, 271);
    const res = await t.app.inject({ url, headers: { ...BROWSER, 'if-none-match': before as string } });
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/271\s€/);
  });
});

/** The headers of an answer but those of each request (its id, its date) or address (its link). */
function pageHeaders(headers: Record<string, unknown>, without = ['x-request-id', 'date']): Record<string, unknown> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !without.includes(name)));
}

describe('pages asked once', () => {
  // Only its stamp is kept from a page's first request (no body), the page itself from its second.
  it('gives the same bytes and headers on the first, second and third request', async () => {
    const url = `/stages/${SESSIONS.lyonMar5.id}?_=once`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await t.app.inject({ url, headers: BROWSER }));
    for (const res of answers) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(answers[0]?.body);
      expect(pageHeaders(res.headers)).toEqual(pageHeaders(answers[0]?.headers ?? {}));
    }
  });

  it('answers a 304 to the tag of a page asked once, with the headers of a kept page’s 304', async () => {
    const once = `/stages/${SESSIONS.parisMar12.id}?_=304-once`;
    const kept = `/stages/${SESSIONS.parisMar12.id}?_=304-kept`;
    const [onceTag, keptTag] = await tags([once, kept]);
    await tags([kept]); // asked twice: kept
    await setPrice(SESSIONS.lyonMar5.id, 245); // elsewhere: both unchanged
    const fromStamp = await t.app.inject({ url: once, headers: { ...BROWSER, 'if-none-match': onceTag as string } });
    const fromPage = await t.app.inject({ url: kept, headers: { ...BROWSER, 'if-none-match': keptTag as string } });
    expect(fromStamp.statusCode).toBe(304);
    expect(fromPage.statusCode).toBe(304);
    expect(fromStamp.body).toBe('');
    expect(Object.keys(fromStamp.headers)).toEqual(Object.keys(fromPage.headers));
    const perRequest = ['x-request-id', 'date', 'link'];
    expect(pageHeaders(fromStamp.headers, perRequest)).toEqual(pageHeaders(fromPage.headers, perRequest));
    expect(fromStamp.headers.link).toBe((fromPage.headers.link as string).replace('304-kept', '304-once'));
    // Asked again after a change to it: rendered, with its new price and a new tag.
    await setPrice(SESSIONS.parisMar12.id, 267);
    const changed = await t.app.inject({ url: once, headers: { ...BROWSER, 'if-none-match': onceTag as string } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(onceTag);
    expect(changed.body).toMatch(/267\s€/);
  });
});

describe('pages kept within an hour', () => {
  it('keeps a page under its tag until a session starts, then until the hour turns', async () => {
    // Sessions of 5 March 2030 start at 08:00 and 08:30 in Paris: 07:00 and 07:30 UTC.
    const clock = frozenClock('2030-03-05T07:10:00Z');
    const app = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
    try {
      const ask = async (now: string, etag?: string) => {
        clock.set(now);
        const headers = etag ? { ...BROWSER, 'if-none-match': etag } : BROWSER;
        const res = await app.app.inject({ url: '/?dept=42', headers });
        return { status: res.statusCode, etag: res.headers.etag as string };
      };
      const first = await ask('2030-03-05T07:10:00Z');
      expect(first.status).toBe(200);
      expect((await ask('2030-03-05T07:25:00Z', first.etag)).status).toBe(304);
      const started = await ask('2030-03-05T07:40:00Z', first.etag);
      expect(started.status).toBe(200);
      expect(started.etag).not.toBe(first.etag);
      expect((await ask('2030-03-05T07:55:00Z', started.etag)).status).toBe(304);
      const nextHour = await ask('2030-03-05T08:05:00Z', started.etag);
      expect(nextHour.status).toBe(200);
      expect([first.etag, started.etag]).not.toContain(nextHour.etag);
      expect((await ask('2030-03-05T08:50:00Z', nextHour.etag)).status).toBe(304);
    } finally {
      await app.close();
    }
  });
});
