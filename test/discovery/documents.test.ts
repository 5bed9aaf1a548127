import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (url: string, method: 'GET' | 'HEAD' = 'GET') =>
  t.app.inject({ method, url, headers: { origin: 'https://agent.example' } });

function expectCacheableJson(res: Awaited<ReturnType<typeof get>>) {
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['cache-control']).toBe('public, max-age=3600');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  return res.json();
}

/** Every absolute URL in a document starts with PUBLIC_BASE_URL or is a known external link. */
function urlsIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s"<>)`]+/g)].map((m) => m[0]);
}

describe('authorization server metadata (RFC 8414)', () => {
  it('describes the token and registration endpoints, with the issuer identical everywhere', async () => {
    const as = expectCacheableJson(await get('/.well-known/oauth-authorization-server'));
    expect(as).toMatchObject({
      issuer: BASE_URL,
      authorization_endpoint: `${BASE_URL}/api/oauth/authorize`,
      token_endpoint: `${BASE_URL}/api/oauth/token`,
      registration_endpoint: `${BASE_URL}/api/oauth/register`,
      jwks_uri: `${BASE_URL}/.well-known/jwks.json`,
      // client_credentials first (spec.md's clients); the browser flow for agent hosts after it.
      grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'RS256'],
      client_id_metadata_document_supported: true,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      // hold and alerts: only for a client a person authorized (test/agent-claims, test/auth/authorization-code*).
      scopes_supported: ['read', 'hold', 'alerts'],
      response_types_supported: ['code'],
      service_documentation: `${BASE_URL}/llms.txt`,
    });
    const prm = (await get('/.well-known/oauth-protected-resource/api/mcp')).json();
    expect(prm.authorization_servers).toEqual([as.issuer]);
  });

  it('has an agent_auth block describing anonymous registration', async () => {
    const { agent_auth: block } = (await get('/.well-known/oauth-authorization-server')).json();
    expect(block).toMatchObject({
      identity_types_supported: ['anonymous'],
      registration_endpoint: `${BASE_URL}/api/oauth/register`,
      claim_endpoint: `${BASE_URL}/api/oauth/claim`,
      credential_type: 'client_secret',
      client_secret_expires: false,
      grant_type: 'client_credentials',
      scopes: ['read'],
      scopes_with_claim: ['hold', 'alerts'],
      claim_available: true,
      access_token_lifetime_seconds: 3600,
    });
    expect(block.claim.never).toEqual(expect.arrayContaining(['pay']));
    expect(block.tier.authenticated).toMatch(/higher rate limit/i);
    expect(block.not_granted).toEqual(expect.arrayContaining(['checkout', 'payment', 'admin_area']));
  });
});

describe('protected resource metadata (RFC 9728)', () => {
  it.each([
    ['/.well-known/oauth-protected-resource', BASE_URL],
    ['/.well-known/oauth-protected-resource/api/mcp', `${BASE_URL}/api/mcp`],
  ])('%s names its resource and the authorization server', async (path, resource) => {
    const prm = expectCacheableJson(await get(path));
    expect(prm).toEqual({
      resource,
      authorization_servers: [BASE_URL],
      scopes_supported: ['read'],
      bearer_methods_supported: ['header'],
      resource_name: expect.any(String),
      resource_documentation: `${BASE_URL}/llms.txt`,
    });
  });
});

describe('API catalog (RFC 9727)', () => {
  it('is a linkset pointing at the OpenAPI description, documentation, status and MCP server card', async () => {
    const res = await get('/.well-known/api-catalog');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    expect(res.headers.link).toBe(`<${BASE_URL}/.well-known/api-catalog>; rel="api-catalog"`);
    const { linkset } = res.json();
    const rest = linkset.find((l: { anchor: string }) => l.anchor === BASE_URL);
    expect(rest['service-desc']).toEqual([
      { href: `${BASE_URL}/openapi.json`, type: 'application/vnd.oai.openapi+json;version=3.1' },
    ]);
    expect(rest['service-doc']).toEqual([
      { href: `${BASE_URL}/docs`, type: 'text/html' },
      { href: `${BASE_URL}/llms.txt`, type: 'text/markdown' },
    ]);
    expect(rest.status[0].href).toBe(`${BASE_URL}/api/health`);
    const mcp = linkset.find((l: { anchor: string }) => l.anchor === `${BASE_URL}/api/mcp`);
    expect(mcp['service-meta'][0].href).toBe(`${BASE_URL}/.well-known/mcp/server-card.json`);
  });

  it('answers HEAD with the Link header and no body', async () => {
    const res = await get('/.well-known/api-catalog', 'HEAD');
    expect(res.statusCode).toBe(200);
    expect(res.headers.link).toBe(`<${BASE_URL}/.well-known/api-catalog>; rel="api-catalog"`);
    expect(res.body).toBe('');
  });

  it('links to documents that exist', async () => {
    const { linkset } = (await get('/.well-known/api-catalog')).json();
    for (const entry of linkset)
      for (const [rel, links] of Object.entries(entry)) {
        if (rel === 'anchor') continue;
        for (const { href } of links as Array<{ href: string }>) {
          const res = await get(href.slice(BASE_URL.length));
          expect(res.statusCode, href).toBe(200);
        }
      }
  });
});

describe('/llms.txt', () => {
  it('follows the llms.txt format and says what matters to an agent', async () => {
    const res = await get('/llms.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    const text = res.body;
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# \S/);
    expect(lines.find((l) => l.startsWith('>'))).toBeDefined();
    expect(text.indexOf('\n> ')).toBeLessThan(text.indexOf('\n## '));
    for (const section of ['## REST', '## MCP', '## Authentication', '## Documents']) expect(text).toContain(section);
    for (const tool of ['search_stages', 'check_availability', 'get_centre', 'list_articles', 'get_article'])
      expect(text).toContain(tool);
    expect(text).toMatch(/bookingUrl/);
    expect(text).toMatch(/never try to book or pay/);
    expect(text).toMatch(/rate-limited per IP address/);
    expect(text).toMatch(/higher rate limit/);
    // Each list item is a Markdown link with a note.
    for (const line of lines.filter((l) => l.startsWith('- ['))) expect(line).toMatch(/^- \[[^\]]+\]\([^)]+\)(: .+)?$/);
  });

  it('links to every discovery document, each of which exists', async () => {
    const text = (await get('/llms.txt')).body;
    for (const path of [
      '/openapi.json',
      '/api/health',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
      '/.well-known/jwks.json',
      '/.well-known/api-catalog',
      '/.well-known/mcp/server-card.json',
      '/api/oauth/register',
      '/api/oauth/token',
      '/api/oauth/claim',
    ])
      expect(text).toContain(`${BASE_URL}${path}`);
    const own = urlsIn(text).filter((u) => u.startsWith(BASE_URL));
    for (const url of own) {
      const path = url.slice(BASE_URL.length);
      // The change stream never ends: that it is served is enough here (test/catalogue/events.test.ts reads it).
      if (path === '/api/stages/events') {
        expect(t.app.hasRoute({ method: 'GET', url: path })).toBe(true);
        continue;
      }
      // POST-only endpoints (the claim's included) answer GET with 405.
      const res = await t.app.inject({ method: 'GET', url: path });
      expect([200, 405], `${url}: ${res.statusCode}`).toContain(res.statusCode);
    }
  });
});

describe('absolute URLs', () => {
  it('come from PUBLIC_BASE_URL', async () => {
    const other = await buildTestApp({ env: { PUBLIC_BASE_URL: 'https://api.example.org/' } });
    try {
      for (const path of [
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource',
        '/.well-known/api-catalog',
        '/llms.txt',
      ]) {
        const body = (await other.app.inject(path)).body;
        const urls = urlsIn(body).filter((u) => !/etalab\.gouv\.fr|creativecommons\.org|rfc-editor\.org/.test(u));
        expect(urls.length).toBeGreaterThan(0);
        for (const url of urls) expect(url, path).toMatch(/^https:\/\/api\.example\.org(\/|$)/);
        expect(body).not.toContain('stages.example.test');
      }
      expect((await other.app.inject('/.well-known/oauth-authorization-server')).json().issuer).toBe(
        'https://api.example.org',
      );
    } finally {
      await other.close();
    }
  });
});
