import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { HOSTILE_NAME, SITE_CATALOGUE } from '../helpers/site-fixtures.js';

/*
 * What an agent that lands on the home page finds, as agent-readiness scanners check it: Link
 * headers to the machine-readable side, a Markdown twin of every page, robots.txt with named AI
 * crawler groups and content signals, the agent skills index, and WebMCP attributes on the
 * search form.
 */

const BASE = 'https://stages.example.test';
const MARKDOWN = { accept: 'text/markdown' };
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ catalogue: SITE_CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
});
afterAll(() => t.close());

/** RFC 8288 Link header → [target, rel, type] triples. */
function links(header: string | string[] | undefined): { href: string; rel: string; type?: string }[] {
  return String(header ?? '')
    .split(/,(?=\s*<)/)
    .map((part) => {
      const href = /<([^>]*)>/.exec(part)?.[1] ?? '';
      const rel = /;\s*rel="([^"]*)"/.exec(part)?.[1] ?? '';
      const type = /;\s*type="([^"]*)"/.exec(part)?.[1];
      return type ? { href, rel, type } : { href, rel };
    });
}

describe('the home page, scanned for agent readiness', () => {
  it('names the API catalog, OpenAPI, the reference, llms.txt, the MCP server card, the skills and its Markdown twin', async () => {
    const res = await t.app.inject({ url: '/', headers: { accept: 'text/html' } });
    expect(res.statusCode).toBe(200);
    const found = links(res.headers.link);
    const byRel = (rel: string) => found.find((l) => l.rel === rel);
    expect(byRel('api-catalog')?.href).toBe(`${BASE}/.well-known/api-catalog`);
    expect(byRel('service-desc')).toEqual({
      href: `${BASE}/openapi.json`,
      rel: 'service-desc',
      type: 'application/vnd.oai.openapi+json;version=3.1',
    });
    expect(byRel('service-doc')?.href).toBe(`${BASE}/docs`);
    expect(byRel('describedby')).toEqual({ href: `${BASE}/llms.txt`, rel: 'describedby', type: 'text/markdown' });
    expect(byRel('mcp-server-card')?.href).toBe(`${BASE}/.well-known/mcp/server-card.json`);
    expect(byRel('agent-skills')?.href).toBe(`${BASE}/.well-known/agent-skills/index.json`);
    expect(byRel('alternate')).toEqual({ href: `${BASE}/`, rel: 'alternate', type: 'text/markdown' });
    expect(res.headers.vary).toBe('Accept');
    // Every target is served.
    for (const l of found) {
      const target = await t.app.inject(new URL(l.href).pathname);
      expect(target.statusCode, l.href).toBe(200);
    }
  });

  it('the site pages carry the same links', async () => {
    for (const path of [`/stages/${SESSIONS.lyonMar5.id}`, '/centres/centre-lyon', '/departements/69', '/articles']) {
      const res = await t.app.inject({ url: path, headers: { accept: 'text/html' } });
      expect(res.statusCode, path).toBe(200);
      expect(
        links(res.headers.link).map((l) => l.rel),
        path,
      ).toEqual([
        'api-catalog',
        'service-desc',
        'service-doc',
        'describedby',
        'mcp-server-card',
        'agent-skills',
        'alternate',
      ]);
    }
  });

  it('every page leads to the eligibility page from its navigation', async () => {
    const html = (await t.app.inject('/articles')).body;
    expect(html).toContain('<a href="/peut-on-faire-un-stage">Puis-je faire un stage ?</a>');
    expect((await t.app.inject('/peut-on-faire-un-stage')).statusCode).toBe(200);
  });

  it('the search form is a WebMCP tool: its name and description, and a description for each field', async () => {
    const html = (await t.app.inject('/')).body;
    const form = /<form class="search card"[^>]*>/.exec(html)?.[0] ?? '';
    expect(form).toContain('toolname="search_courses"');
    expect(form).toMatch(/tooldescription="Search upcoming two-day driving-licence points-recovery courses/);
    for (const name of ['city', 'dept', 'from', 'to', 'maxPrice', 'includeUnavailable']) {
      const field = new RegExp(`<(?:input|select)[^>]*name="${name}"[^>]*>`).exec(html)?.[0] ?? '';
      expect(field, name).toMatch(/toolparamdescription="[^"]{10,}"/);
    }
  });
});

describe('Markdown versions of the pages (Accept: text/markdown)', () => {
  const md = new MarkdownIt();

  it('the home page in Markdown: a heading, the sessions with absolute links, the search as one line', async () => {
    const res = await t.app.inject({ url: '/', headers: MARKDOWN });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers.vary).toBe('Accept');
    const tokens = md.parse(res.body, {});
    expect(tokens.some((tk) => tk.type === 'heading_open' && tk.tag === 'h1')).toBe(true);
    expect(res.body).toContain(`(${BASE}/stages/${SESSIONS.lyonMar5.id})`);
    expect(res.body).toMatch(/Rechercher : https:\/\/stages\.example\.test\/\?city=…&dept=…&from=…&to=…&maxPrice=…/);
    expect(res.body).not.toContain('<form');
    expect(res.body).not.toMatch(/\]\(\/[^)]*\)/); // no relative link
  });

  it('a session page in Markdown: its facts, and that the person books on the page; the same for everyone', async () => {
    const res = await t.app.inject({ url: `/stages/${SESSIONS.lyonMar5.id}`, headers: MARKDOWN });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('mardi 5 mars 2030');
    expect(res.body).toMatch(/239\s€/);
    expect(res.body).toContain(
      `Réservation : sur cette page, ${BASE}/stages/${SESSIONS.lyonMar5.id}, par la personne elle-même`,
    );
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=2, stale-while-revalidate=3');
    // Revalidation by ETag, as the HTML pages.
    const again = await t.app.inject({
      url: `/stages/${SESSIONS.lyonMar5.id}`,
      headers: { ...MARKDOWN, 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('an article in Markdown reads as the article; an unknown page is a 404 in Markdown', async () => {
    const res = await t.app.inject({ url: '/articles/quand-les-points-sont-ils-credites', headers: MARKDOWN });
    expect(res.statusCode).toBe(200);
    expect(md.parse(res.body, {}).filter((tk) => tk.type === 'heading_open').length).toBeGreaterThan(1);
    const missing = await t.app.inject({ url: '/stages/00000000-0000-4000-8000-00000000dead', headers: MARKDOWN });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toBe('text/markdown; charset=utf-8');
  });

  it('HTML stays the answer to browsers and to Accept lists that prefer it; catalogue text stays text', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    expect((await t.app.inject({ url: '/', headers: { accept: browser } })).headers['content-type']).toMatch(/html/);
    expect(
      (await t.app.inject({ url: '/', headers: { accept: 'text/html, text/markdown;q=0.5' } })).headers['content-type'],
    ).toMatch(/html/);
    expect(
      (await t.app.inject({ url: '/', headers: { accept: 'text/markdown, text/html;q=0.5' } })).headers['content-type'],
    ).toMatch(/markdown/);
    // A centre named like markup is shown as its name, never as markup (Turndown escapes it).
    const hostile = await t.app.inject({ url: '/centres/centre-hostile', headers: MARKDOWN });
    if (hostile.statusCode === 200) expect(hostile.body).not.toContain(HOSTILE_NAME);
  });
});

describe('robots.txt, content signals and agent skills', () => {
  it('robots.txt: named AI groups, a Content-Signal line in each, training crawlers out with ai-train=no', async () => {
    const body = (await t.app.inject('/robots.txt')).body;
    const groups = body.split(/\n\n+/).filter((g) => g.includes('User-agent:'));
    expect(groups.length).toBe(3);
    for (const g of groups) expect(g).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    const [all, assistants, training] = groups as [string, string, string];
    expect(all).toContain('User-agent: *');
    for (const ua of ['OAI-SearchBot', 'ChatGPT-User', 'Claude-User', 'PerplexityBot'])
      expect(assistants).toContain(`User-agent: ${ua}`);
    expect(assistants).toContain('Allow: /\n');
    for (const ua of ['GPTBot', 'ClaudeBot', 'CCBot', 'Google-Extended'])
      expect(training).toContain(`User-agent: ${ua}`);
    expect(training).toMatch(/Disallow: \/$/);
    // Secret links, signed-in pages and the agents' consent pages are no crawler's business.
    for (const p of ['/reservations/', '/mon-espace', '/espace-centre', '/administration', '/connexion', '/agents/']) {
      expect(all).toContain(`Disallow: ${p}`);
    }
  });

  it('CONTENT_SIGNAL changes the signal; with ai-train=yes training crawlers get the common rules', async () => {
    const other = await buildTestApp({ env: { CONTENT_SIGNAL: 'search=yes, ai-train=yes' } });
    try {
      const body = (await other.app.inject('/robots.txt')).body;
      expect(body).toContain('Content-Signal: search=yes, ai-train=yes');
      expect(body).not.toMatch(/Disallow: \/\n/);
    } finally {
      await other.close();
    }
  });

  it('the agent skills index (discovery 0.2.0): one skill-md whose digest is that of the bytes served', async () => {
    const res = await t.app.inject('/.well-known/agent-skills/index.json');
    expect(res.statusCode).toBe(200);
    const index = res.json();
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills).toHaveLength(1);
    const [skill] = index.skills;
    expect(skill).toMatchObject({ name: 'find-points-recovery-course', type: 'skill-md' });
    expect(skill.name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    expect(skill.description.length).toBeLessThanOrEqual(1024);
    const file = await t.app.inject(new URL(skill.url).pathname);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(skill.digest).toBe(`sha256:${createHash('sha256').update(file.rawPayload).digest('hex')}`);
    // The SKILL.md: front matter naming it, then how to search, check and hand over bookingUrl.
    expect(file.body).toMatch(/^---\nname: find-points-recovery-course\ndescription: "/);
    for (const words of ['search_stages', 'check_availability', 'bookingUrl', `${BASE}/api/stages`]) {
      expect(file.body).toContain(words);
    }
  });
});
