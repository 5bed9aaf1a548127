import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { isPublicApiPath } from '../../src/http/cors.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { openForm, PERSON, privatePath, submit } from '../helpers/booking.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';

/*
 * CORS on the public API only. Pages — a reservation's private page above all, and any page added
 * later — carry no Access-Control-* header, nor do their preflights: another site's script may
 * not read them.
 */

const ORIGIN = { origin: 'https://elsewhere.example' };
let db: TestDatabase;
let app: Awaited<ReturnType<typeof buildApp>>;
let reservationPage: string;

beforeAll(async () => {
  db = await openTestDatabase();
  await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
  app = await buildApp(testConfig(), { database: db.database, logger: false, clock: frozenClock(FIXTURE_NOW) });
  // A page of an area to come: registered like any later route, with nothing said about CORS.
  app.get('/espace-centre/tableau', async () => 'private');
  const session = SESSIONS.lyonMar5.id;
  const booked = await submit(app, session, await openForm(app, `/stages/${session}`), PERSON);
  reservationPage = privatePath(booked.headers.location);
});
afterAll(async () => {
  await app.close();
  await db.dispose();
});

const corsOf = async (url: string, method: 'GET' | 'OPTIONS' = 'GET') => {
  const preflight = method === 'OPTIONS' ? { 'access-control-request-method': 'GET' } : {};
  const res = await app.inject({ method, url, headers: { ...ORIGIN, ...preflight } });
  return Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));
};

describe('CORS', () => {
  it('is absent from a reservation’s private page, its cancel form and its preflight', async () => {
    expect(reservationPage).toMatch(/^\/reservations\//);
    expect(await corsOf(reservationPage)).toEqual([]);
    expect(await corsOf(`${reservationPage}/annulation`)).toEqual([]);
    expect(await corsOf(reservationPage, 'OPTIONS')).toEqual([]);
  });

  it('is absent from the site’s pages, a page added later, and paths that lead nowhere', async () => {
    for (const url of [
      `/stages/${SESSIONS.lyonMar5.id}`,
      '/',
      '/docs',
      '/espace-centre/tableau',
      '/nowhere',
      '/api/nope',
    ])
      expect(await corsOf(url), url).toEqual([]);
  });

  it('opens the public API to every origin, preflights included', async () => {
    for (const url of [
      '/api/stages?limit=1',
      `/api/stages/${SESSIONS.lyonMar5.id}`,
      '/api/health',
      '/api/admin/sessions',
      '/openapi.json',
      '/llms.txt',
      '/.well-known/oauth-authorization-server',
    ]) {
      const res = await app.inject({ url, headers: ORIGIN });
      expect(res.headers['access-control-allow-origin'], url).toBe('*');
    }
    expect(await corsOf('/api/stages', 'OPTIONS')).toContain('access-control-allow-origin');
  });

  it('gives the public API’s routes the very headers @fastify/cors gives, in the same place', async () => {
    // A path under the public API that no route answers: its 404 gets the plugin's own headers.
    const plugin = await app.inject({ url: '/api/stages/x/y/z', headers: ORIGIN });
    expect(plugin.statusCode).toBe(404);
    const fromPlugin = Object.entries(plugin.headers).filter(([name]) => name.startsWith('access-control-'));
    expect(fromPlugin.map(([name]) => name)).toEqual(['access-control-allow-origin', 'access-control-expose-headers']);
    for (const [method, url] of [
      ['GET', '/api/stages?limit=1'],
      ['HEAD', '/api/stages?limit=1'],
      ['GET', '/api/stages?dept=999'],
      ['GET', `/api/stages/${SESSIONS.lyonMar5.id}`],
      ['GET', '/api/health'],
      ['GET', '/api/admin/sessions'],
      ['GET', '/openapi.json'],
      ['POST', '/api/oauth/token'],
    ] as const) {
      const res = await app.inject({ method, url, headers: ORIGIN });
      const names = Object.keys(res.headers);
      const own = Object.entries(res.headers).filter(([name]) => name.startsWith('access-control-'));
      expect(own, `${method} ${url}`).toEqual(fromPlugin);
      // Right after the request id, where the plugin's hook put them.
      expect(names[names.indexOf('x-request-id') + 1], `${method} ${url}`).toBe('access-control-allow-origin');
    }
  });

  it('reads paths as the router does', () => {
    expect(isPublicApiPath('/api/stages')).toBe(true);
    expect(isPublicApiPath('/api//stages?x=1')).toBe(true);
    expect(isPublicApiPath('/api/stagesX')).toBe(false);
    expect(isPublicApiPath('/reservations/abc')).toBe(false);
    expect(isPublicApiPath('/.well-known/jwks.json')).toBe(true);
  });
});
