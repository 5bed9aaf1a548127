import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import {
  HOSTILE_CENTRE,
  HOSTILE_NAME,
  HOSTILE_SESSIONS,
  jsonLdBlocks,
  SITE_CATALOGUE,
  SUMMER_SESSION,
} from '../helpers/site-fixtures.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: SITE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterAll(() => t.close());

async function page(url: string) {
  const res = await t.app.inject({ url, headers: BROWSER });
  return { status: res.statusCode, headers: res.headers, html: res.body };
}

/** Visible text of some HTML, tags dropped and entities of the renderer decoded. */
function text(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

function sessionLinks(html: string): string[] {
  return [...html.matchAll(/<h3><a href="\/stages\/([0-9a-f-]{36})">/g)].map((m) => m[1] as string);
}

describe('home page and search', () => {
  it('is French, mobile-ready HTML with a labelled search form and the next sessions', async () => {
    const res = await page('/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.html).toMatch(/^<!doctype html><html lang="fr">/);
    expect(res.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
    for (const id of ['city', 'dept', 'from', 'to', 'maxPrice', 'includeUnavailable']) {
      expect(res.html).toContain(`id="${id}"`);
      expect(res.html).toContain(`for="${id}"`);
    }
    const body = text(res.html);
    // Lyon, 5 March 2030: 08:30–16:30, 239 €, 3 places left.
    expect(body).toContain('mardi 5 mars 2030');
    expect(body).toContain('et mercredi 6 mars, de 8 h 30 à 16 h 30');
    expect(body).toMatch(/239\s€/);
    expect(body).toContain('plus que 3 places');
    // The past session is not listed, the full one neither (by default).
    const ids = sessionLinks(res.html);
    expect(ids).not.toContain(SESSIONS.lyonPast.id);
    expect(ids).not.toContain(SESSIONS.parisMar6Full.id);
  });

  it('lists the same sessions as GET /api/stages for the same filters', async () => {
    for (const qs of [
      'city=lyon',
      'dept=75&includeUnavailable=true',
      'maxPrice=230',
      'from=2030-03-12&to=2030-03-14',
    ]) {
      const api = (await t.app.inject(`/api/stages?${qs}`)).json() as { data: { id: string }[] };
      const res = await page(`/?${qs}`);
      expect(res.status, qs).toBe(200);
      expect(sessionLinks(res.html), qs).toEqual(api.data.map((s) => s.id));
    }
    const full = await page('/?dept=75&includeUnavailable=true');
    expect(text(full.html)).toContain('complet');
  });

  it('takes a department typed in the town box (by name or code) as that department', async () => {
    const api = (await t.app.inject('/api/stages?dept=69')).json() as { data: { id: string }[] };
    for (const typed of ['Rhône', 'rhone', '69']) {
      const res = await page(`/?city=${encodeURIComponent(typed)}`);
      expect(sessionLinks(res.html), typed).toEqual(api.data.map((s) => s.id));
    }
    // A town is still a town.
    const lyon = (await t.app.inject('/api/stages?city=lyon')).json() as { data: { id: string }[] };
    expect(sessionLinks((await page('/?city=Lyon')).html)).toEqual(lyon.data.map((s) => s.id));
  });

  it('paginates, 20 sessions a page, with previous and next links', async () => {
    const first = await page('/?city=villeurbanne');
    expect(sessionLinks(first.html)).toHaveLength(20);
    expect(first.html).toContain('href="/?city=villeurbanne&amp;page=2" rel="next"');
    const second = await page('/?city=villeurbanne&page=2');
    // 25 sessions in March and one in July at this centre.
    expect(sessionLinks(second.html)).toEqual([...HOSTILE_SESSIONS.slice(20), SUMMER_SESSION].map((s) => s.id));
    expect(second.html).toContain('href="/?city=villeurbanne" rel="prev"');
    expect(second.html).not.toContain('rel="next"');
  });

  it('answers bad values with a readable message in the page (400), never a 500', async () => {
    const cases: [string, string][] = [
      ['maxPrice=abc', 'Prix maximum : saisissez un nombre'],
      ['maxPrice=-3', 'Prix maximum : saisissez un nombre'],
      ['from=2030-02-30', 'Du : saisissez une date réelle'],
      ['from=2030-03-10&to=2030-03-01', 'Au : la date de fin ne peut pas précéder la date de début.'],
      ['dept=999', 'Département : choisissez un département de la liste.'],
      ['city=a&city=b', 'Ville ou département : saisissez un nom'],
      [`city=${'x'.repeat(101)}`, 'Ville ou département : saisissez un nom'],
      ['page=0', 'Page : un numéro de page'],
      ['page=abc', 'Page : un numéro de page'],
      ['includeUnavailable=maybe', 'Sessions complètes'],
    ];
    for (const [qs, message] of cases) {
      const res = await page(`/?${qs}`);
      expect(res.status, qs).toBe(400);
      expect(res.headers['content-type'], qs).toBe('text/html; charset=utf-8');
      expect(text(res.html), qs).toContain(message);
      expect(res.html, qs).toContain('role="alert"');
    }
    // The typed values come back in the form, escaped.
    const res = await page('/?maxPrice=%22%3E%3Cscript%3E');
    expect(res.html).toContain('value="&quot;>&lt;script>"');
    expect(res.html).toContain('aria-invalid="true" aria-describedby="maxPrice-error"');
  });
});

describe('session page', () => {
  it('shows both days and times, price, places, course number, centre and the booking step', async () => {
    const s = SESSIONS.lyonMar5;
    const res = await page(`/stages/${s.id}`);
    expect(res.status).toBe(200);
    const body = text(res.html);
    expect(body).toContain('mardi 5 mars 2030');
    expect(body).toContain('mercredi 6 mars 2030');
    expect(body).toContain('de 8 h 30 à 16 h 30');
    expect(body).toMatch(/239\s€/);
    expect(body).toContain('plus que 3 places');
    expect(body).toContain(s.courseNumber);
    expect(body).toContain('Centre Lyon');
    expect(body).toContain('1 rue A 69003 Lyon');
    expect(body).toContain('Agrément préfectoral n° R2306900001');
    expect(res.html).toContain('href="https://www.openstreetmap.org/?mlat=45&amp;mlon=4#map=17/45/4"');
    expect(res.html).toContain('href="/centres/centre-lyon"');
    expect(res.html).toContain('href="/articles/quand-les-points-sont-ils-credites"');
    expect(res.html).toContain('id="reserver"');
    expect(body).not.toContain('complet');
  });

  it('carries EducationEvent JSON-LD with offsets of the centre zone, place, offer and organizer', async () => {
    const s = SESSIONS.lyonMar5;
    const [event, ...rest] = jsonLdBlocks((await page(`/stages/${s.id}`)).html);
    expect(rest).toHaveLength(0);
    const url = `https://stages.example.test/stages/${s.id}`;
    expect(event).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'EducationEvent',
      name: expect.stringContaining('Lyon'),
      startDate: '2030-03-05T08:30:00+01:00',
      endDate: '2030-03-06T16:30:00+01:00',
      eventStatus: 'https://schema.org/EventScheduled',
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      location: {
        '@type': 'Place',
        name: 'Centre Lyon',
        address: { '@type': 'PostalAddress', streetAddress: '1 rue A', addressLocality: 'Lyon', postalCode: '69003' },
        geo: { '@type': 'GeoCoordinates', latitude: 45, longitude: 4 },
      },
      offers: {
        '@type': 'Offer',
        price: 239,
        priceCurrency: 'EUR',
        availability: 'https://schema.org/LimitedAvailability',
        url,
      },
      organizer: {
        '@type': 'Organization',
        name: 'Centre Lyon',
        url: 'https://stages.example.test/centres/centre-lyon',
      },
      url,
    });
    // Summer time in Paris, and La Réunion's own zone.
    const [summer] = jsonLdBlocks((await page(`/stages/${SUMMER_SESSION.id}`)).html);
    expect(summer).toMatchObject({ startDate: '2030-07-08T09:00:00+02:00', endDate: '2030-07-09T17:00:00+02:00' });
    const reunion = await page(`/stages/${SESSIONS.reunionMar19.id}`);
    expect(jsonLdBlocks(reunion.html)[0]).toMatchObject({ startDate: '2030-03-19T08:30:00+04:00' });
    expect(text(reunion.html)).toContain('de 8 h 30 à 16 h 30 (heure de La Réunion)');
    const many = await page(`/stages/${SESSIONS.stEtienneMar5.id}`);
    expect(jsonLdBlocks(many.html)[0]).toMatchObject({ offers: { availability: 'https://schema.org/InStock' } });
  });

  it('says a full session is full, offers the next sessions nearby and no booking step', async () => {
    const res = await page(`/stages/${SESSIONS.parisMar6Full.id}`);
    expect(res.status).toBe(200);
    const body = text(res.html);
    expect(body).toContain('Ce stage est complet');
    expect(res.html).not.toContain('id="reserver"');
    // Same department first (Paris 12 March), then the rest of Île-de-France (none here).
    expect(sessionLinks(res.html)).toEqual([SESSIONS.parisMar12.id]);
    expect(jsonLdBlocks(res.html)[0]).toMatchObject({ offers: { availability: 'https://schema.org/SoldOut' } });
  });

  it('fills the alternatives from the region when the department has too few', async () => {
    // Saint-Étienne (42) has one session; the next are in the Rhône and the Ain (same region).
    const full = { ...SESSIONS.stEtienneMar5, spotsAvailable: 0 };
    await replaceCatalogue(t.db.database.db, {
      centres: SITE_CATALOGUE.centres,
      sessions: SITE_CATALOGUE.sessions.map((s) => (s.id === full.id ? full : s)),
    });
    await t.app.catalogue.refresh();
    try {
      const res = await page(`/stages/${full.id}`);
      const ids = sessionLinks(res.html);
      expect(ids).toHaveLength(5);
      expect(ids.slice(0, 3)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id, HOSTILE_SESSIONS[0]?.id]);
      expect(ids).not.toContain(SESSIONS.parisMar12.id); // another region
    } finally {
      await replaceCatalogue(t.db.database.db, SITE_CATALOGUE);
      await t.app.catalogue.refresh();
    }
  });

  it('says a past session is over, with the same alternatives', async () => {
    const res = await page(`/stages/${SESSIONS.lyonPast.id}`);
    expect(res.status).toBe(200);
    expect(text(res.html)).toContain('Ce stage est terminé : il a commencé le lundi 25 février 2030.');
    expect(res.html).not.toContain('id="reserver"');
    expect(sessionLinks(res.html).slice(0, 2)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id]);
  });

  it('shows places as they are now: a change of the catalogue reaches the page', async () => {
    const s = SESSIONS.stEtienneMar5;
    expect(text((await page(`/stages/${s.id}`)).html)).toContain('12 places disponibles');
    await replaceCatalogue(t.db.database.db, {
      centres: SITE_CATALOGUE.centres,
      sessions: SITE_CATALOGUE.sessions.map((x) => (x.id === s.id ? { ...x, spotsAvailable: 2 } : x)),
    });
    await t.app.catalogue.refresh();
    try {
      expect(text((await page(`/stages/${s.id}`)).html)).toContain('plus que 2 places');
    } finally {
      await replaceCatalogue(t.db.database.db, SITE_CATALOGUE);
      await t.app.catalogue.refresh();
    }
  });

  it('lets a browser or a CDN revalidate: an unchanged page is a 304, a changed one comes whole', async () => {
    const url = `/stages/${SESSIONS.bourgMar14.id}`;
    const first = await t.app.inject({ url, headers: BROWSER });
    const etag = first.headers.etag as string;
    // The page with the reservation form is the same for every visitor: one tag, kept a few seconds by a CDN.
    expect(etag).toMatch(/^"\d+-\d{4}-\d{2}-\d{2}T\d{2}"$/);
    expect(first.headers['cache-control']).toBe('public, max-age=0, s-maxage=2, stale-while-revalidate=3');
    expect(first.headers['set-cookie']).toBeUndefined();
    const again = await t.app.inject({ url, headers: { ...BROWSER, 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    await replaceCatalogue(t.db.database.db, SITE_CATALOGUE); // a new catalogue version
    await t.app.catalogue.refresh();
    const changed = await t.app.inject({ url, headers: { ...BROWSER, 'if-none-match': etag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('answers an unknown or malformed id with the HTML 404 page', async () => {
    for (const id of ['10000000-0000-4000-8000-999999999999', 'nope', '<script>']) {
      const res = await page(`/stages/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(404);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(text(res.html)).toContain('Page introuvable');
    }
  });
});

describe('centre and department pages', () => {
  it('shows the centre, its upcoming sessions and LocalBusiness JSON-LD', async () => {
    const res = await page('/centres/centre-lyon');
    expect(res.status).toBe(200);
    const body = text(res.html);
    expect(body).toContain('Centre Lyon');
    expect(body).toContain('R2306900001');
    expect(sessionLinks(res.html)).toEqual([SESSIONS.lyonMar5Early.id, SESSIONS.lyonMar5.id, SESSIONS.lyonApr2Full.id]);
    expect(jsonLdBlocks(res.html)[0]).toMatchObject({
      '@type': 'LocalBusiness',
      name: 'Centre Lyon',
      url: 'https://stages.example.test/centres/centre-lyon',
      address: { '@type': 'PostalAddress', addressLocality: 'Lyon', postalCode: '69003' },
      geo: { '@type': 'GeoCoordinates', latitude: 45, longitude: 4 },
    });
    expect((await page('/centres/no-such-centre')).status).toBe(404);
  });

  it('lists a department’s sessions and centres; codes are canonical', async () => {
    const res = await page('/departements/69');
    expect(res.status).toBe(200);
    expect(text(res.html)).toContain('Stages de récupération de points : Rhône (69)');
    const api = (await t.app.inject('/api/stages?dept=69')).json() as { data: { id: string }[] };
    expect(sessionLinks(res.html)).toEqual(api.data.map((s) => s.id));
    expect(res.html).toContain('href="/centres/centre-hostile"');
    const redirect = await t.app.inject({ url: '/departements/1', headers: BROWSER });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/departements/01');
    expect((await t.app.inject({ url: '/departements/2a', headers: BROWSER })).headers.location).toBe(
      '/departements/2A',
    );
    expect((await page('/departements/999')).status).toBe(404);
    expect((await page('/departements/69?page=9')).status).toBe(404);
  });
});

describe('articles', () => {
  it('lists the articles and renders one from its Markdown', async () => {
    const list = await page('/articles');
    expect(list.status).toBe(200);
    expect(list.html).toContain('href="/articles/quand-les-points-sont-ils-credites"');
    const one = await page('/articles/quand-les-points-sont-ils-credites');
    expect(one.status).toBe(200);
    expect(one.html).toContain("<h2>Jusqu'à 4 points, dans la limite du maximum</h2>");
    expect(one.html).toContain("<strong>jusqu'à 4 points</strong>");
    expect(one.html).toContain('href="https://www.legifrance.gouv.fr/');
    expect((await page('/articles/nope')).status).toBe(404);
  });
});

describe('hostile catalogue content', () => {
  it('renders a centre named <script> as text everywhere', async () => {
    for (const url of ['/centres/centre-hostile', `/stages/${HOSTILE_SESSIONS[0]?.id}`, '/?city=villeurbanne']) {
      const res = await page(url);
      expect(res.status, url).toBe(200);
      // The only <script> elements are the JSON-LD blocks.
      const scripts = res.html.match(/<script\b[^>]*>/g) ?? [];
      expect(
        scripts.every((s) => s === '<script type="application/ld+json">'),
        url,
      ).toBe(true);
      expect(res.html, url).not.toContain('<img');
      expect(res.html, url).not.toContain('<!--');
      expect(res.html, url).toContain('&lt;script>alert(&quot;nom&quot;)&lt;/script>');
      expect(text(res.html), url).toContain(HOSTILE_NAME);
      // JSON-LD still parses and holds the very text.
      for (const block of jsonLdBlocks(res.html))
        expect(JSON.stringify(block)).toContain(JSON.stringify(HOSTILE_NAME).slice(1, -1));
    }
    const [event] = jsonLdBlocks((await page(`/stages/${HOSTILE_SESSIONS[0]?.id}`)).html);
    expect(event).toMatchObject({
      location: { name: HOSTILE_NAME, address: { streetAddress: HOSTILE_CENTRE.address } },
    });
  });
});

describe('odd addresses', () => {
  it('never answers a 500, whatever the path or query', async () => {
    const urls = [
      '/centres/%00',
      '/departements/%F0%9F%98%80',
      '/stages/%3Cscript%3E',
      '/?page=99999999999999999999',
      '/?maxPrice=1e400',
      '/?from=%00&to=%FF',
      '/?dept[]=69',
      '/articles/..%2F..%2Fetc%2Fpasswd',
      '/centres/centre-lyon?page=-1',
    ];
    for (const url of urls) {
      const res = await page(url);
      expect(res.status, url).toBeLessThan(500);
      expect(res.headers['content-type'], url).toBe('text/html; charset=utf-8');
    }
    // Malformed percent-encoding and over-long path segments are refused by the router itself,
    // before any page: a 400 and a 414.
    expect((await page('/centres/%E0%A4%A')).status).toBe(400);
    expect((await page(`/stages/${'a'.repeat(300)}`)).status).toBe(414);
  });
});

describe('robots, sitemap, stylesheet, headers', () => {
  it('serves robots.txt pointing to the sitemap, everything public open (the AI groups: test/site/agent-ready)', async () => {
    const res = await t.app.inject('/robots.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toContain('Sitemap: https://stages.example.test/sitemap.xml');
    expect(res.body).toMatch(
      /\nUser-agent: \*\nContent-Signal: search=yes, ai-input=yes, ai-train=no\nAllow: \/\nDisallow: \/reservations\/\n/,
    );
  });

  it('lists the pages in sitemap.xml: home, articles, the eligibility check, departments, centres, sessions not begun', async () => {
    const res = await t.app.inject('/sitemap.xml');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    const locs = [...res.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    const base = 'https://stages.example.test';
    expect(locs).toContain(`${base}/`);
    expect(locs).toContain(`${base}/articles`);
    expect(locs).toContain(`${base}/articles/quand-les-points-sont-ils-credites`);
    expect(locs).toContain(`${base}/departements/2A`);
    expect(locs).toContain(`${base}/centres/centre-hostile`);
    expect(locs).toContain(`${base}/stages/${SESSIONS.parisMar6Full.id}`);
    expect(locs).not.toContain(`${base}/stages/${SESSIONS.lyonPast.id}`);
    expect(locs).toContain(`${base}/peut-on-faire-un-stage`);
    expect(locs).toHaveLength(3 + 15 + 101 + 7 + (SITE_CATALOGUE.sessions.length - 1));
  });

  it('links one stylesheet of its own, cacheable for a year', async () => {
    const html = (await page('/')).html;
    const hrefs = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1] as string);
    expect(hrefs).toHaveLength(1);
    expect(hrefs[0]).toMatch(/^\/assets\/site-[0-9a-f]{12}\.css$/);
    const css = await t.app.inject(hrefs[0] as string);
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // No external asset anywhere: every src/href is local or a plain link out.
    expect(html).not.toMatch(/(src|href)="\/\//);
    expect(html).not.toMatch(/<(img|script)[^>]+src=|<link rel="(stylesheet|icon)" href="https?:/);
  });

  it('gives pages a CSP allowing only its own styles and refusing framing; the API keeps its own', async () => {
    const res = await page('/');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
    const api = await t.app.inject({ url: '/api/stages?limit=1', headers: BROWSER });
    expect(api.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('answers unknown paths with an HTML 404 for browsers, problem+json for API clients and /api/*', async () => {
    const html = await page('/nulle-part');
    expect(html.status).toBe(404);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(html.html).toContain('<html lang="fr">');
    expect(text(html.html)).toContain('Page introuvable');
    const api = await t.app.inject({ url: '/nulle-part', headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    const curl = await t.app.inject({ url: '/nulle-part', headers: { accept: '*/*' } });
    expect(curl.headers['content-type']).toMatch(/^application\/problem\+json/);
    const apiPath = await t.app.inject({ url: '/api/nulle-part', headers: BROWSER });
    expect(apiPath.statusCode).toBe(404);
    expect(apiPath.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
