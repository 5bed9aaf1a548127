import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysFor } from '../../helpers/admin-keys.js';
import { buildTestApp, frozenClock, type TestApp } from '../../helpers/app.js';
import { afterAnswer, openForm, privatePath, submit } from '../../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../../helpers/fixtures.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

/*
 * Golden answers: status, headers and body of a fixed set of requests through every door, on
 * the fixture catalogue with a frozen clock. They were recorded before the code was rearranged
 * and must stay the same byte for byte; a change here is a change of behaviour, to be made on
 * purpose and said in the commit. Values that differ on every run (secrets, tokens, database
 * times, request ids) are replaced by named placeholders before comparing.
 */

interface Exchange {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  payload?: string | object;
}

// Headers that carry no behaviour, or whose value is the run's own.
// content-length follows the body, which is compared whole (and some of it redacted).
const SKIPPED_HEADERS = new Set(['date', 'keep-alive', 'connection', 'content-length']);

class Redactor {
  private readonly names = new Map<string, string>();
  /** Replaces `value` by `<label-N>` wherever it appears from now on. */
  add(label: string, value: string | undefined): void {
    if (!value || this.names.has(value)) return;
    const n = [...this.names.values()].filter((v) => v.startsWith(`<${label}-`)).length + 1;
    this.names.set(value, `<${label}-${n}>`);
  }
  apply(text: string): string {
    let out = text;
    for (const [value, name] of this.names) out = out.split(value).join(name);
    // Times the database writes (now()), and the real clock's where the frozen one is not used.
    out = out.replace(/20[12]\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g, '<db-time>');
    out = out.replace(/"version":\s*\d+/g, '"version":<n>');
    // Strong ETags of admin records hash their updatedAt; a page's ends with a hash of its form token.
    out = out.replace(/etag: "[A-Za-z0-9_-]{27}"/g, 'etag: "<record-etag>"');
    // A page's begins with the catalogue version, which counts the writes that loaded the demo
    // catalogue into the template, and the demo is dated from the real day.
    out = out.replace(/etag: "\d+-([0-9T-]+?)(-[A-Za-z0-9_-]{10})?"/g, (_, epoch: string, token?: string) =>
      token ? `etag: "<version>-${epoch}-<token-hash>"` : `etag: "<version>-${epoch}"`,
    );
    // The health answer names the database and how fast it answered.
    out = out
      .replace(/"latencyMs": [\d.]+/g, '"latencyMs": <ms>')
      .replace(/"kind": "(pglite|postgres)"/g, '"kind": <db>');
    return out;
  }
}

function describeAnswer(label: string, req: Exchange, res: LightMyRequestResponse): string {
  const headers = Object.entries(res.headers)
    .filter(([name]) => !SKIPPED_HEADERS.has(name))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(' | ') : String(value)}`);
  const body = res.body;
  let shown = body;
  const type = String(res.headers['content-type'] ?? '');
  if (type.includes('json') && body.length > 0) {
    try {
      shown = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      shown = body;
    }
  }
  return [`### ${label}`, `${req.method ?? 'GET'} ${req.url}`, `${res.statusCode}`, ...headers, '', shown, '', ''].join(
    '\n',
  );
}

let t: TestApp;
let smtp: TestSmtpServer;
const redactor = new Redactor();
const sections: Record<string, string[]> = {};

function section(door: string): string[] {
  const list = sections[door] ?? [];
  sections[door] = list;
  return list;
}

async function record(door: string, label: string, req: Exchange): Promise<LightMyRequestResponse> {
  const res = await t.app.inject({
    method: req.method ?? 'GET',
    url: req.url,
    headers: req.headers ?? {},
    ...(req.payload === undefined ? {} : { payload: req.payload }),
  });
  const id = res.headers['x-request-id'];
  if (typeof id === 'string') redactor.add('request-id', id);
  section(door).push(describeAnswer(label, req, res));
  return res;
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (id: number, method: string, params?: object) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await buildTestApp({
    catalogue: FIXTURE_CATALOGUE,
    clock: frozenClock(FIXTURE_NOW),
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'Stages <reservations@stages.example.test>' },
  });
});

afterAll(async () => {
  await t?.close();
  await smtp.close();
});

const lyon = SESSIONS.lyonMar5;
const MISSING = '9b2f6c1e-0000-4000-8000-00000000dead';

describe('golden answers through every door (frozen clock, fixture catalogue)', () => {
  it('REST', async () => {
    const d = 'rest';
    await record(d, 'list, defaults', { url: '/api/stages' });
    await record(d, 'list, department', { url: '/api/stages?dept=69&limit=2' });
    const page1 = await record(d, 'list, first page', { url: '/api/stages?limit=3&includeUnavailable=true' });
    const cursor = (page1.json() as { nextCursor?: string }).nextCursor;
    await record(d, 'list, second page', {
      url: `/api/stages?limit=3&includeUnavailable=true&cursor=${encodeURIComponent(String(cursor))}`,
    });
    await record(d, 'list, town and price', { url: '/api/stages?city=st%20etienne&maxPrice=230' });
    await record(d, 'list, region, price order', { url: '/api/stages?region=rhone&sort=price' });
    await record(d, 'list, near, distance order', { url: '/api/stages?near=Villeurbanne&radiusKm=100&sort=distance' });
    await record(d, 'list, weekdays', { url: '/api/stages?days=mardi,sam' });
    await record(d, 'list, conditional', {
      url: '/api/stages?dept=69&limit=2',
      headers: { 'if-none-match': String(page1.headers.etag) },
    });
    await record(d, 'list, bad parameters', { url: '/api/stages?limit=2.5&dept=20&maxPrice=1e3' });
    await record(d, 'list, unknown place', { url: '/api/stages?near=Qzxwv' });
    await record(d, 'list, a place several communes answer to', { url: '/api/stages?near=Clermont' });
    await record(d, 'list, a misspelt place', { url: '/api/stages?near=Lyonn&limit=1' });
    await record(d, 'list, altered cursor', { url: '/api/stages?cursor=abc' });
    await record(d, 'session', { url: `/api/stages/${lyon.id}` });
    await record(d, 'session, full', { url: `/api/stages/${SESSIONS.parisMar6Full.id}` });
    await record(d, 'session, past', { url: `/api/stages/${SESSIONS.lyonPast.id}` });
    await record(d, 'session, unknown', { url: `/api/stages/${MISSING}` });
    await record(d, 'session, not a uuid', { url: '/api/stages/abc' });
    await record(d, 'health', { url: '/api/health' });
    await record(d, 'no such path', { url: '/api/nothing' });
    await record(d, 'method not allowed', { method: 'DELETE', url: '/api/stages' });
    await record(d, 'preflight', {
      method: 'OPTIONS' as 'GET',
      url: '/api/stages',
      headers: { origin: 'https://agent.example', 'access-control-request-method': 'GET' },
    });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/rest.txt');
  });

  it('MCP', async () => {
    const d = 'mcp';
    const post = (label: string, body: string, headers: Record<string, string> = MCP_HEADERS) =>
      record(d, label, { method: 'POST', url: '/api/mcp', headers, payload: body });
    await post(
      'initialize',
      rpc(1, 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'golden', version: '1.0.0' },
      }),
    );
    await post('tools/list', rpc(2, 'tools/list'));
    await post('search_stages', rpc(3, 'tools/call', { name: 'search_stages', arguments: { dept: '69', limit: 2 } }));
    await post(
      'search_stages, near',
      rpc(4, 'tools/call', { name: 'search_stages', arguments: { near: 'Lyon 3e', days: ['samedi', 'mardi'] } }),
    );
    await post(
      'search_stages, bad arguments',
      rpc(5, 'tools/call', { name: 'search_stages', arguments: { limit: 1000, dept: 'xx' } }),
    );
    await post('check_availability', rpc(6, 'tools/call', { name: 'check_availability', arguments: { id: lyon.id } }));
    await post(
      'check_availability, unknown',
      rpc(7, 'tools/call', { name: 'check_availability', arguments: { id: MISSING } }),
    );
    await post('get_centre', rpc(8, 'tools/call', { name: 'get_centre', arguments: { slug: CENTRES.lyon.slug } }));
    await post('list_articles', rpc(9, 'tools/call', { name: 'list_articles', arguments: {} }));
    await post(
      'get_article',
      rpc(10, 'tools/call', {
        name: 'get_article',
        arguments: { slug: 'permis-probatoire-lettre-48n-stage-obligatoire' },
      }),
    );
    await post('resources/list', rpc(11, 'resources/list'));
    await post('prompts/list', rpc(12, 'prompts/list'));
    await post('unknown method', rpc(13, 'no/such/method'));
    await post('malformed JSON', '{"jsonrpc": "2.0", "id": 1, "method":');
    await post('plain curl headers', rpc(14, 'tools/list'), { 'content-type': 'application/json' });
    await post(
      'stateless revision',
      JSON.stringify({
        jsonrpc: '2.0',
        id: 15,
        method: 'tools/call',
        params: {
          name: 'search_stages',
          arguments: { city: 'Paris' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'golden', version: '1.0.0' },
          },
        },
      }),
      { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_stages' },
    );
    await post('bad bearer', rpc(16, 'tools/list'), { ...MCP_HEADERS, authorization: 'Bearer not-a-token' });
    await record(d, 'server card', { url: '/.well-known/mcp/server-card.json' });
    await record(d, 'server card, draft path', {
      url: '/api/mcp/server-card',
      headers: { accept: 'application/mcp-server-card+json' },
    });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/mcp.txt');
  });

  it('OAuth', async () => {
    const d = 'oauth';
    const reg = await record(d, 'register', {
      method: 'POST',
      url: '/api/oauth/register',
      payload: { client_name: 'golden agent', unknown_field: 1 },
    });
    const client = reg.json() as { client_id: string; client_secret: string; client_id_issued_at: number };
    redactor.add('client-id', client.client_id);
    redactor.add('client-secret', client.client_secret);
    await record(d, 'register, bad metadata', {
      method: 'POST',
      url: '/api/oauth/register',
      payload: { client_name: 'x', grant_types: ['authorization_code'] },
    });
    const form = (params: Record<string, string>) => new URLSearchParams(params).toString();
    const token = await t.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      }),
    });
    const access = (token.json() as { access_token: string }).access_token;
    redactor.add('access-token', access);
    await record(d, 'token', {
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      }),
    }).then((res) => redactor.add('access-token', (res.json() as { access_token: string }).access_token));
    await record(d, 'token, wrong secret', {
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'nope' }),
    });
    await record(d, 'token, unsupported grant', {
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ grant_type: 'password', client_id: client.client_id, client_secret: client.client_secret }),
    });
    await record(d, 'authorize', { url: '/api/oauth/authorize?response_type=code&client_id=x' });
    await record(d, 'claim', { method: 'POST', url: '/api/oauth/claim' });
    await record(d, 'MCP with a token', {
      method: 'POST',
      url: '/api/mcp',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${access}` },
      payload: rpc(1, 'tools/call', { name: 'check_availability', arguments: { id: lyon.id } }),
    });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/oauth.txt');
  });

  it('discovery', async () => {
    const d = 'discovery';
    for (const url of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/api/mcp',
      '/.well-known/api-catalog',
      '/llms.txt',
      '/robots.txt',
      '/sitemap.xml',
      '/openapi.json',
      '/docs',
    ])
      await record(d, url, { url });
    await record(d, 'api-catalog, HEAD', { method: 'HEAD', url: '/.well-known/api-catalog' });
    const jwks = await t.app.inject('/.well-known/jwks.json');
    section(d).push(
      `### jwks\n${jwks.statusCode}\nkeys: ${(jwks.json() as { keys: object[] }).keys.length}\n` +
        `cache-control: ${String(jwks.headers['cache-control'])}\ncontent-type: ${String(jwks.headers['content-type'])}\n\n`,
    );
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/discovery.txt');
  });

  it('site pages', async () => {
    const d = 'site';
    const html = { accept: 'text/html' };
    await record(d, 'home', { url: '/', headers: html });
    // Pages with the alert form are the same for every visitor: no token, no cookie.
    await record(d, 'home, search', { url: '/?city=lyon&maxPrice=240', headers: html });
    await record(d, 'home, bad search', { url: '/?city=!!!&from=2030-99-01&page=99', headers: html });
    await record(d, 'full session', { url: `/stages/${SESSIONS.parisMar6Full.id}`, headers: html });
    await record(d, 'past session', { url: `/stages/${SESSIONS.lyonPast.id}`, headers: html });
    await record(d, 'centre', { url: `/centres/${CENTRES.paris.slug}`, headers: html });
    await record(d, 'department', { url: '/departements/69', headers: html });
    await record(d, 'articles', { url: '/articles', headers: html });
    await record(d, 'article', { url: '/articles/prix-d-un-stage-de-recuperation-de-points', headers: html });
    await record(d, 'no such page', { url: '/nulle-part', headers: html });
    const home = await t.app.inject('/');
    const stylesheet = /\/assets\/site-[0-9a-f]{12}\.css/.exec(home.body)?.[0] ?? '/assets/missing.css';
    await record(d, 'stylesheet', { url: stylesheet });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/site.txt');
  });

  it('reservations and emails', async () => {
    const d = 'reservations';
    const keys = await keysFor(t.app, CENTRES.lyon.id);
    const { id: _, ...lyonCentre } = CENTRES.lyon;
    await t.app.inject({
      method: 'PUT',
      url: `/api/admin/centres/${CENTRES.lyon.id}`,
      headers: keys.admin,
      payload: { ...lyonCentre, email: 'accueil@centre-lyon.example', phone: '04 72 00 00 00' },
    });
    const form = await openForm(t.app, `/stages/${lyon.id}`);
    await record(d, 'session page with the form', { url: `/stages/${lyon.id}` });
    await record(d, 'form, missing fields', {
      method: 'POST',
      url: `/stages/${lyon.id}/reservation`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      payload: new URLSearchParams({ website: '', firstName: 'A' }).toString(),
    });
    const booked = await submit(t.app, lyon.id, form);
    const path = privatePath(booked.headers.location);
    // The booking's answer set this browser's form cookie; the private page's cancel form carries it.
    const browser = afterAnswer(form, booked);
    redactor.add('form-token', browser.cookie.slice(browser.cookie.indexOf('=') + 1));
    redactor.add('private-link', path.slice('/reservations/'.length));
    const page = await record(d, 'private page', { url: path, headers: { cookie: browser.cookie } });
    const reference = /SRP-[0-9A-Z]{4}-[0-9A-Z]{4}/.exec(page.body)?.[0];
    redactor.add('reference', reference);
    // The emails were queued with the booking; the worker sends them.
    await t.app.jobs.drain();
    expect(smtp.received.length).toBe(2);
    const mails = [...smtp.received].sort((a, b) => a.to.localeCompare(b.to));
    for (const mail of mails)
      section(d).push(
        `### email to ${mail.to}\nSubject: ${mail.subject}\ncontent-type: ${mail.contentType}\n\n${mail.text}\n\n`,
      );
    const list = await t.app.inject({ url: '/api/admin/reservations', headers: keys.partner });
    const reservation = (list.json() as { data: { id: string }[] }).data[0];
    redactor.add('reservation-id', reservation?.id);
    await record(d, 'admin, reservations', { url: '/api/admin/reservations', headers: keys.partner });
    await record(d, 'admin, confirm', {
      method: 'PATCH',
      url: `/api/admin/reservations/${reservation?.id}`,
      headers: keys.partner,
      payload: { status: 'confirmed' },
    });
    await record(d, 'cancel from the private page', {
      method: 'POST',
      url: `${path}/annulation`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: browser.cookie,
        'sec-fetch-site': 'same-origin',
      },
      payload: new URLSearchParams({ formToken: browser.cookie.slice(browser.cookie.indexOf('=') + 1) }).toString(),
    });
    await record(d, 'private page, after', { url: path, headers: { cookie: browser.cookie } });
    await record(d, 'unknown private link', { url: '/reservations/AAAAAAAAAAAAAAAAAAAAAA' });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/reservations.txt');
  });

  it('operator and partner API', async () => {
    const d = 'admin';
    const keys = await keysFor(t.app, CENTRES.paris.id);
    const session = SESSIONS.parisMar12;
    const newId = '30000000-0000-4000-8000-000000000001';
    const sessionBody = {
      centreId: CENTRES.paris.id,
      courseNumber: 'R2407500003-20300319',
      day1: '2030-03-19',
      startTime: '08:30',
      endTime: '16:30',
      priceEuros: 229.5,
      capacity: 20,
      spotsAvailable: 12,
    };
    await record(d, 'no key', { url: `/api/admin/sessions/${session.id}` });
    await record(d, 'unknown key', {
      url: `/api/admin/sessions/${session.id}`,
      headers: { authorization: 'Bearer sk_nope' },
    });
    await record(d, 'read a session', { url: `/api/admin/sessions/${session.id}`, headers: keys.partner });
    await record(d, 'read another centre’s session', {
      url: `/api/admin/sessions/${lyon.id}`,
      headers: keys.partner,
    });
    await record(d, 'read a centre', { url: `/api/admin/centres/${CENTRES.paris.id}`, headers: keys.partner });
    await record(d, 'list sessions', { url: '/api/admin/sessions?limit=2', headers: keys.partner });
    await record(d, 'create a session', {
      method: 'PUT',
      url: `/api/admin/sessions/${newId}`,
      headers: keys.partner,
      payload: sessionBody,
    });
    await record(d, 'the same again', {
      method: 'PUT',
      url: `/api/admin/sessions/${newId}`,
      headers: keys.partner,
      payload: sessionBody,
    });
    await record(d, 'a session on a Sunday', {
      method: 'PUT',
      url: `/api/admin/sessions/${newId}`,
      headers: keys.partner,
      payload: { ...sessionBody, day1: '2030-03-17', spotsAvailable: 30 },
    });
    await record(d, 'a taken course number', {
      method: 'PUT',
      url: '/api/admin/sessions/30000000-0000-4000-8000-000000000002',
      headers: keys.partner,
      payload: sessionBody,
    });
    await record(d, 'patch the price', {
      method: 'PATCH',
      url: `/api/admin/sessions/${newId}`,
      headers: keys.partner,
      payload: { priceEuros: 240 },
    });
    await record(d, 'patch with a stale If-Match', {
      method: 'PATCH',
      url: `/api/admin/sessions/${newId}`,
      headers: { ...keys.partner, 'if-match': '"stale"' },
      payload: { priceEuros: 250 },
    });
    await record(d, 'take a place', {
      method: 'POST',
      url: `/api/admin/sessions/${newId}/places`,
      headers: { ...keys.partner, 'idempotency-key': 'golden-1' },
      payload: { change: -1 },
    });
    await record(d, 'take a place, replayed', {
      method: 'POST',
      url: `/api/admin/sessions/${newId}/places`,
      headers: { ...keys.partner, 'idempotency-key': 'golden-1' },
      payload: { change: -1 },
    });
    await record(d, 'take too many places', {
      method: 'POST',
      url: `/api/admin/sessions/${newId}/places`,
      headers: keys.partner,
      payload: { change: -50 },
    });
    await record(d, 'operator-only route with a partner key', {
      method: 'PUT',
      url: `/api/admin/centres/${CENTRES.paris.id}`,
      headers: keys.partner,
      payload: {},
    });
    await record(d, 'import, dry run', {
      method: 'POST',
      url: '/api/admin/import?dryRun=true',
      headers: { ...keys.partner, 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify({ type: 'session', id: newId, ...sessionBody, priceEuros: 231 })}\n`,
    });
    await record(d, 'import, bad records', {
      method: 'POST',
      url: '/api/admin/import',
      headers: { ...keys.partner, 'content-type': 'text/csv' },
      payload: 'type,id,centreId,day1\nsession,nope,x,2030-13-01\n',
    });
    await record(d, 'agent token on the admin API', {
      url: '/api/admin/sessions',
      headers: { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.x' },
    });
    await expect(redactor.apply(sections[d]?.join('') ?? '')).toMatchFileSnapshot('./answers/admin.txt');
  });
});
