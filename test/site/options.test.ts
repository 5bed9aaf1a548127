import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ArticleLibrary } from '../../src/articles/articles.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp, frozenClock, testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('operators with their own site', () => {
  it('refuses SITE=off without both URL templates, and templates without their placeholder', () => {
    expect(() => loadConfig({ SITE: 'off' })).toThrow(ConfigError);
    expect(() => loadConfig({ SITE: 'off' })).toThrow(/BOOKING_URL_TEMPLATE is required when SITE=off/);
    expect(() => loadConfig({ SITE: 'off', BOOKING_URL_TEMPLATE: 'https://x.fr/s/{id}' })).toThrow(
      /CENTRE_URL_TEMPLATE is required when SITE=off/,
    );
    expect(() => loadConfig({ BOOKING_URL_TEMPLATE: 'https://x.fr/stage' })).toThrow(
      /BOOKING_URL_TEMPLATE must be an absolute http\(s\) URL containing \{id\}/,
    );
    expect(() => loadConfig({ CENTRE_URL_TEMPLATE: '/centre/{slug}' })).toThrow(/CENTRE_URL_TEMPLATE/);
    expect(() => loadConfig({ SITE: 'maybe' })).toThrow(/SITE must be on or off/);
    expect(loadConfig({}).site).toBe(true);
  });

  it('points bookingUrl and url at the templates, and SITE=off turns the pages off', async () => {
    const t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: {
        SITE: 'off',
        BOOKING_URL_TEMPLATE: 'https://www.example.fr/stage/{id}?from=api',
        CENTRE_URL_TEMPLATE: 'https://www.example.fr/centre/{slug}',
      },
    });
    try {
      const list = (await t.app.inject('/api/stages?dept=69&limit=1')).json();
      const s = list.data[0];
      expect(s.bookingUrl).toBe(`https://www.example.fr/stage/${s.id}?from=api`);
      expect(s.centre.url).toBe('https://www.example.fr/centre/centre-lyon');
      for (const url of [
        '/',
        `/stages/${SESSIONS.lyonMar5.id}`,
        '/centres/centre-lyon',
        '/sitemap.xml',
        '/robots.txt',
      ]) {
        const res = await t.app.inject({ url, headers: BROWSER });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      }
    } finally {
      await t.close();
    }
  });
});

describe('limits on pages', () => {
  it('answers a browser over its rate limit with a readable 429 page, and the stylesheet stays outside the budget', async () => {
    const t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { RATE_LIMIT: 'on', RATE_LIMIT_PAGES: '2', RATE_LIMIT_ANONYMOUS: '1' },
    });
    try {
      const home = await t.app.inject({ url: '/', headers: BROWSER });
      const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(home.body)?.[1] as string;
      for (let i = 0; i < 3; i++) expect((await t.app.inject(stylesheet)).statusCode).toBe(200);
      expect((await t.app.inject({ url: '/articles', headers: BROWSER })).statusCode).toBe(200);
      const limited = await t.app.inject({ url: '/articles', headers: BROWSER });
      expect(limited.statusCode).toBe(429);
      expect(limited.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(limited.headers['retry-after']).toMatch(/^\d+$/);
      expect(limited.body).toContain('<h1>Trop de requêtes</h1>');
      // The API's budget is another one: its first request passes, its second is a problem.
      expect((await t.app.inject({ url: '/api/stages', headers: BROWSER })).statusCode).toBe(200);
      const api = await t.app.inject({ url: '/api/stages', headers: BROWSER });
      expect(api.statusCode).toBe(429);
      expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
    } finally {
      await t.close();
    }
  });
});

describe('articles written by someone hostile', () => {
  it('renders Markdown with raw HTML and script links disabled', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'articles-'));
    await writeFile(
      join(dir, 'piege.md'),
      [
        '---',
        'slug: piege',
        'title: "Titre <script>alert(1)</script>"',
        'summary: "Résumé <img src=x onerror=alert(2)>"',
        'topic: faq',
        'tags: [x]',
        'updatedAt: 2026-11-22',
        'sources:',
        '  - title: "Source <b>gras</b>"',
        '    url: "https://www.legifrance.gouv.fr/"',
        '---',
        '',
        '## Sous-titre',
        '',
        '<script>alert(3)</script>',
        '',
        'Texte <img src=x onerror=alert(4)> et [lien](javascript:alert(5)) et [bon lien](https://www.service-public.fr/).',
        '',
      ].join('\n'),
    );
    const db = await openTestDatabase();
    const app = await buildApp(testConfig(), {
      database: db.database,
      logger: false,
      articles: await ArticleLibrary.load(dir),
    });
    try {
      const res = await app.inject({ url: '/articles/piege', headers: BROWSER });
      expect(res.statusCode).toBe(200);
      const html = res.body;
      expect(html).toContain('<h2>Sous-titre</h2>');
      expect(html).toContain('<p>&lt;script&gt;alert(3)&lt;/script&gt;</p>');
      expect(html).toContain('Texte &lt;img src=x onerror=alert(4)&gt; et [lien](javascript:alert(5))');
      expect(html).toContain('<a href="https://www.service-public.fr/">bon lien</a>');
      expect(html).not.toMatch(/href="javascript:/i);
      expect(html).not.toMatch(/<img|<b>|<script>alert/);
      expect(html).toContain('Titre &lt;script>alert(1)&lt;/script>');
      const list = await app.inject({ url: '/articles', headers: BROWSER });
      expect(list.body).toContain('Résumé &lt;img src=x onerror=alert(2)>');
    } finally {
      await app.close();
      await db.dispose();
      await rm(dir, { recursive: true });
    }
  });
});
