import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CentreRecord, SessionRecord } from '../../src/catalogue/read-model.js';
import { StageListSchema } from '../../src/catalogue/schemas.js';
import { keysFor } from '../helpers/admin-keys.js';
import { buildTestApp, frozenClock } from '../helpers/app.js';
import { FIXTURE_NOW } from '../helpers/fixtures.js';
import { type McpTestServer, startMcpTestServer } from '../helpers/mcp.js';

/*
 * What people ask, as they ask it: near a town, a postal code or a position, the cheapest first,
 * on a Saturday, page after page. Centres at their real positions around Lyon, Saint-Étienne and
 * Paris; "now" is Monday 4 March 2030.
 */

const centre = (n: number, fields: Omit<CentreRecord, 'id' | 'agrementNumber' | 'address' | 'slug'>): CentreRecord => ({
  id: `00000000-0000-4000-8000-0000000001${String(n).padStart(2, '0')}`,
  slug: `centre-${n}`,
  address: `${n} rue de la Gare`,
  agrementNumber: `R23${fields.deptCode.padStart(3, '0')}001${String(n).padStart(2, '0')}`,
  ...fields,
});

const C = {
  villeurbanne: centre(1, {
    name: 'Stage Villeurbanne',
    city: 'Villeurbanne',
    postalCode: '69100',
    deptCode: '69',
    lat: 45.7719,
    lng: 4.8902,
  }),
  lyon3: centre(2, {
    name: 'Stage Lyon Part-Dieu',
    city: 'Lyon',
    postalCode: '69003',
    deptCode: '69',
    lat: 45.7607,
    lng: 4.8593,
  }),
  steFoy: centre(3, {
    name: 'Stage Sainte-Foy',
    city: 'Sainte-Foy-lès-Lyon',
    postalCode: '69110',
    deptCode: '69',
    lat: 45.7337,
    lng: 4.8026,
  }),
  stEtienne: centre(4, {
    name: 'Stage Saint-Étienne',
    city: 'Saint-Étienne',
    postalCode: '42000',
    deptCode: '42',
    lat: 45.4339,
    lng: 4.39,
  }),
  paris15: centre(5, {
    name: 'Stage Paris 15',
    city: 'Paris',
    postalCode: '75015',
    deptCode: '75',
    lat: 48.8412,
    lng: 2.3003,
  }),
};

let seq = 0;
const session = (c: CentreRecord, day1: string, euros: number, spots = 10, startTime = '08:30'): SessionRecord => {
  const next = new Date(`${day1}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  seq++;
  return {
    id: `10000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    centreId: c.id,
    courseNumber: `N-${seq}`,
    day1,
    day2: next.toISOString().slice(0, 10),
    startTime,
    endTime: '16:30',
    priceCents: euros * 100,
    capacity: 20,
    spotsAvailable: spots,
  };
};

// Courses never run on Sundays: a "Saturday" course is Friday–Saturday (8–9, 15–16, 22–23 March 2030).
const S = {
  villeurbanneSat9: session(C.villeurbanne, '2030-03-08', 240),
  villeurbanneSat16Dear: session(C.villeurbanne, '2030-03-15', 290),
  villeurbanneTue12: session(C.villeurbanne, '2030-03-12', 199),
  lyonSat16: session(C.lyon3, '2030-03-15', 215),
  lyonSat23Full: session(C.lyon3, '2030-03-22', 180, 0),
  lyonThu14: session(C.lyon3, '2030-03-14', 230),
  steFoySat9: session(C.steFoy, '2030-03-08', 249),
  stEtienneSat9: session(C.stEtienne, '2030-03-08', 150),
  stEtienneWed6: session(C.stEtienne, '2030-03-06', 210),
  parisSat9: session(C.paris15, '2030-03-08', 260),
  parisMon11: session(C.paris15, '2030-03-11', 245),
};

const CATALOGUE = { centres: Object.values(C), sessions: Object.values(S) };

type List = {
  count: number;
  total: number;
  description: string;
  nextCursor?: string;
  data: Array<{
    id: string;
    priceEuros: number;
    spotsAvailable: number;
    day1: string;
    distanceKm?: number;
    centre: { city: string };
  }>;
};

let server: McpTestServer;
let client: Client;
beforeAll(async () => {
  server = await startMcpTestServer({}, CATALOGUE);
  client = new Client({ name: 'search-features-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(server.endpoint));
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const rest = async (query: string) => {
  const res = await server.app.inject(`/api/stages?${query}`);
  return { status: res.statusCode, body: res.json(), type: res.headers['content-type'] };
};
const tool = async (args: Record<string, unknown>) =>
  (await client.callTool({ name: 'search_stages', arguments: args })) as {
    isError?: boolean;
    structuredContent?: List;
    content: Array<{ text: string }>;
  };

describe('"a course near Villeurbanne under 250 € on a Saturday, cheapest first"', () => {
  const expected = [S.lyonSat16.id, S.villeurbanneSat9.id, S.steFoySat9.id];

  it('over REST: Saturday sessions within 30 km, at most 250 €, cheapest first, each with its distance', async () => {
    const r = await rest('near=Villeurbanne&maxPrice=250&days=saturday&sort=price');
    expect(r.status).toBe(200);
    const list = StageListSchema.parse(r.body) as List;
    expect(list.data.map((s) => s.id)).toEqual(expected);
    expect(list.total).toBe(3);
    expect(list.nextCursor).toBeUndefined();
    expect(list.data.map((s) => s.priceEuros)).toEqual([215, 240, 249]);
    // Villeurbanne's town centre (GeoNames) is about 1 km from the first centre, 2.5 from Part-Dieu.
    const [lyon, villeurbanne, steFoy] = list.data.map((s) => s.distanceKm as number);
    expect(villeurbanne).toBeLessThan(2);
    expect(lyon).toBeGreaterThan(villeurbanne as number);
    expect(steFoy).toBeGreaterThan(lyon as number);
    expect(steFoy).toBeLessThan(10);
    expect(list.description).toContain('Villeurbanne (69, Rhône)');
    expect(list.description).toContain('samedi');
    expect(list.description).toContain('triées par prix');
  });

  it('over MCP with the real SDK client, as a model writes it: the same answer', async () => {
    const r = await tool({ near: 'villeurbanne', maxPrice: '250', days: ['Samedi'], sort: 'price', radiusKm: '' });
    expect(r.isError ?? false, r.content[0]?.text).toBe(false);
    expect(r.structuredContent?.data.map((s) => s.id)).toEqual(expected);
    const viaRest = await rest('near=Villeurbanne&maxPrice=250&days=saturday&sort=price');
    expect(r.structuredContent).toEqual(viaRest.body);
    expect(r.content[0]?.text).toMatch(/Stage Lyon Part-Dieu.*· \d+,\d km/);
  });

  it('nearest first, within a radius, from a postal code or a position', async () => {
    const byDistance = await rest('near=69100&sort=distance&radiusKm=5');
    expect(byDistance.body.data.map((s: { centre: { city: string } }) => s.centre.city)).toEqual([
      'Villeurbanne',
      'Villeurbanne',
      'Villeurbanne',
      'Lyon',
      'Lyon',
    ]);
    const distances = byDistance.body.data.map((s: { distanceKm: number }) => s.distanceKm);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    const position = await rest('near=45.4339,4.39&radiusKm=1');
    expect(position.body.data.map((s: { id: string }) => s.id)).toEqual([S.stEtienneWed6.id, S.stEtienneSat9.id]);
    expect(position.body.data[0].distanceKm).toBe(0);
    const wide = await rest('near=Villeurbanne&radiusKm=60&days=sam&sort=price');
    expect(wide.body.data[0].id).toBe(S.stEtienneSat9.id);
  });

  it('weekdays as people write them: a session on one of them (first or second day)', async () => {
    for (const days of ['saturday', 'SAMEDI', 'sat', 'Sam', 'sat,sun', ' samedi , dimanche ']) {
      const r = await rest(`days=${encodeURIComponent(days)}`);
      expect(r.status, days).toBe(200);
      expect(
        r.body.data.every((s: { day1: string }) => new Date(s.day1).getUTCDay() === 5),
        days,
      ).toBe(true);
      expect(r.body.total, days).toBe(6);
    }
    const tuesday = await rest('days=mardi,mercredi');
    // Mon–Tue, Tue–Wed, Wed–Thu: every session with a Tuesday or a Wednesday.
    expect(tuesday.body.data.map((s: { id: string }) => s.id)).toEqual([
      S.stEtienneWed6.id,
      S.parisMon11.id,
      S.villeurbanneTue12.id,
    ]);
    const bad = await rest('days=someday');
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { name: string }) => e.name)).toEqual(['days']);
  });
});

describe('towns as people write them', () => {
  const cities = async (query: string) =>
    (await rest(query)).body.data.map((s: { centre: { city: string } }) => s.centre.city) as string[];

  it('city: "Lyon 3e", "Lyon 3", "69003" find the Lyon centre (an arrondissement or its postal code means the town)', async () => {
    for (const city of ['Lyon 3e', 'lyon 3', '69003', 'Lyon 3ème']) {
      expect(await cities(`city=${encodeURIComponent(city)}`), city).toEqual(['Lyon', 'Lyon']);
    }
  });

  it('city: "St Etienne", "Ste Foy" and postal codes of other towns', async () => {
    expect(await cities('city=St%20Etienne')).toEqual(['Saint-Étienne', 'Saint-Étienne']);
    expect(await cities('city=st-etienne')).toEqual(['Saint-Étienne', 'Saint-Étienne']);
    expect(await cities('city=Ste%20Foy')).toEqual(['Sainte-Foy-lès-Lyon']);
    expect(await cities('city=69100')).toEqual(['Villeurbanne', 'Villeurbanne', 'Villeurbanne']);
    expect(await cities('city=75015')).toEqual(['Paris', 'Paris']);
    // An INSEE code: Villeurbanne is 69266.
    expect(await cities('city=69266')).toEqual(['Villeurbanne', 'Villeurbanne', 'Villeurbanne']);
  });

  it('near: "Lyon 3e", "Paris 15e", "Marseille 8e", "St Etienne" resolve; a misspelt name says how it was read', async () => {
    const lyon = await rest('near=Lyon%203e&radiusKm=10');
    expect(lyon.status).toBe(200);
    expect(lyon.body.description).toContain('Lyon 3e Arrondissement (69, Rhône)');
    expect(lyon.body.data.some((s: { centre: { city: string } }) => s.centre.city === 'Lyon')).toBe(true);
    const paris = await rest('near=Paris%2015e');
    expect(paris.body.data.map((s: { id: string }) => s.id)).toEqual([S.parisSat9.id, S.parisMon11.id]);
    const marseille = await rest('near=Marseille%208e');
    expect(marseille.status).toBe(200);
    expect(marseille.body.total).toBe(0);
    const stEtienne = await rest('near=St%20Etienne&radiusKm=5');
    expect(stEtienne.body.total).toBe(2);
    const grenoble = await rest('near=Grenble');
    expect(grenoble.status).toBe(200);
    expect(grenoble.body.description).toContain('Grenoble (38, Isère) (« Grenble » lu comme Grenoble)');
    const saintDenis = await rest('near=Saint-Denis%2C%20La%20R%C3%A9union');
    expect(saintDenis.status).toBe(200);
    expect(saintDenis.body.description).toContain('Saint-Denis (974, La Réunion)');
  });

  it('near that several places answer to: a 400 listing them, each with the near that names it, on REST and MCP', async () => {
    // La Réunion's Saint-Denis (153,000) does not dominate Seine-Saint-Denis' (113,000): the client asks.
    const r = await rest('near=Saint-Denis');
    expect(r.status).toBe(400);
    const [error] = r.body.errors;
    expect(error.name).toBe('near');
    expect(error.candidates.slice(0, 2)).toEqual([
      { name: 'Saint-Denis', deptCode: '974', postalCode: '97400', near: 'Saint-Denis 97400' },
      { name: 'Saint-Denis', deptCode: '93', postalCode: '93200', near: 'Saint-Denis 93200' },
    ]);
    const chosen = await rest(`near=${encodeURIComponent(error.candidates[1].near)}`);
    expect(chosen.status).toBe(200);
    expect(chosen.body.description).toContain('Saint-Denis (93, Seine-Saint-Denis)');
    const m = await tool({ near: 'Saint-Denis' });
    expect(m.isError).toBe(true);
    expect(m.content[0]?.text).toContain('"Saint-Denis 93200"');
  });

  it('an unknown place, a bad position, distance without a place: a 400 naming the argument, and the same words on MCP', async () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ['near=Villeurbxxx', { near: 'Villeurbxxx' }, 'near', /unknown place "Villeurbxxx"/],
      ['near=Saint-Etiennx%20du%20Rouvxx', { near: 'Saint-Etiennx du Rouvxx' }, 'near', /unknown place/],
      [
        'near=Saint-Etienne-du-Rouv',
        { near: 'Saint-Etienne-du-Rouv' },
        'near',
        /did you mean Saint-Étienne-du-Rouvray \(76, Seine-Maritime\)/,
      ],
      ['near=99999', { near: '99999' }, 'near', /no commune has the postal code or INSEE code "99999"/],
      ['near=91,4', { near: '91,4' }, 'near', /latitude -90 to 90/],
      ['sort=distance', { sort: 'distance' }, 'sort', /distance needs near/],
      ['radiusKm=10', { radiusKm: 10 }, 'radiusKm', /needs near/],
    ];
    for (const [query, args, field, message] of cases) {
      const r = await rest(query);
      expect(r.status, query).toBe(400);
      expect(r.type).toMatch(/^application\/problem\+json/);
      expect(
        r.body.errors.map((e: { name: string }) => e.name),
        query,
      ).toEqual([field]);
      expect(r.body.detail).toMatch(message);
      const m = await tool(args);
      expect(m.isError, query).toBe(true);
      expect(m.content[0]?.text).toContain(r.body.detail);
    }
    expect((await rest('radiusKm=201&near=Lyon')).body.errors[0].name).toBe('radiusKm');
  });
});

describe('pages', () => {
  it('walks a whole result with total and nextCursor, over REST and MCP alike', async () => {
    const all = await rest('limit=100');
    expect(all.body.total).toBe(10);
    for (const sort of ['date', 'price']) {
      const full = (await rest(`limit=100&sort=${sort}`)).body.data.map((s: { id: string }) => s.id);
      const walked: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const r = await rest(`limit=3&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(r.body.total).toBe(10);
        const m = await tool({ limit: 3, sort, ...(cursor ? { cursor } : {}) });
        expect(m.structuredContent).toEqual(r.body);
        walked.push(...r.body.data.map((s: { id: string }) => s.id));
        cursor = r.body.nextCursor;
        pages++;
      } while (cursor);
      expect(pages).toBe(4);
      expect(walked).toEqual(full);
    }
  });

  it('refuses a cursor of another search or an altered one, naming cursor', async () => {
    const first = await rest('limit=2&dept=69');
    const cursor = first.body.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    // Only limit may change.
    expect((await rest(`limit=5&dept=69&cursor=${cursor}`)).status).toBe(200);
    for (const query of [
      `dept=42&cursor=${cursor}`,
      `dept=69&sort=price&cursor=${cursor}`,
      `dept=69&cursor=${cursor.slice(3)}`,
      'cursor=abc',
    ]) {
      const r = await rest(query);
      expect(r.status, query).toBe(400);
      expect(r.body.errors.map((e: { name: string }) => e.name)).toEqual(['cursor']);
      const args = Object.fromEntries(new URLSearchParams(query));
      const m = await tool(args);
      expect(m.isError).toBe(true);
      expect(m.content[0]?.text).toContain(r.body.detail);
    }
    expect((await rest('cursor=not%20a%20cursor')).status).toBe(400);
  });

  it('still reads a cursor handed out before the November 2026 format, as long as it continues the same search', async () => {
    const first = await rest('limit=2&dept=69&sort=price');
    const last = first.body.data.at(-1) as { id: string; day1: string; startTime: string; priceEuros: number };
    // The first format, as the service wrote it then: a JSON array with a SHA-1 print of the filters.
    const v1 = (filters: unknown[]) =>
      Buffer.from(
        JSON.stringify([
          1,
          createHash('sha1').update(JSON.stringify(filters)).digest('base64url').slice(0, 12),
          last.day1,
          last.startTime,
          Math.round(last.priceEuros * 100),
          last.id,
          0,
        ]),
      ).toString('base64url');
    const filters = ['', '69', '', '', '', '', false, '', '', '', 'price'];
    const old = await rest(`limit=2&dept=69&sort=price&cursor=${v1(filters)}`);
    const now = await rest(`limit=2&dept=69&sort=price&cursor=${first.body.nextCursor}`);
    expect(old.status).toBe(200);
    expect(old.body.data).toEqual(now.body.data);
    const other = await rest(`limit=2&dept=69&sort=price&cursor=${v1(['', '42', ...filters.slice(2)])}`);
    expect(other.status).toBe(400);
    expect(other.body.detail).toContain('belongs to another search');
  });
});

describe('pages while the catalogue changes', () => {
  it('no session that exists throughout is repeated or skipped, whatever is added, removed or booked between pages', async () => {
    // Its own app: this test writes.
    const t = await buildTestApp({ catalogue: CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    try {
      const keys = await keysFor(t.app, C.lyon3.id);
      const write = async (method: 'PUT' | 'PATCH' | 'POST' | 'DELETE', url: string, payload?: object) => {
        const before = t.app.catalogue.snapshot.version;
        const res = await t.app.inject({ method, url, headers: keys.admin, ...(payload ? { payload } : {}) });
        expect(res.statusCode, res.body).toBeLessThan(300);
        await t.app.catalogue.refresh();
        expect(t.app.catalogue.snapshot.version).toBeGreaterThan(before);
      };
      const page = async (query: string) => (await t.app.inject(`/api/stages?${query}`)).json() as List;
      let added = 0;
      const addSession = (day1: string, euros: number) =>
        write('PUT', `/api/admin/sessions/72000000-0000-4000-8000-${String(++added).padStart(12, '0')}`, {
          centreId: C.villeurbanne.id,
          courseNumber: `ADD-${added}`,
          day1,
          startTime: '08:30',
          endTime: '16:30',
          priceEuros: euros,
          capacity: 20,
          spotsAvailable: 5,
          declaredOn: '2030-01-02',
        });

      for (const [sort, near] of [
        ['date', ''],
        ['price', ''],
        ['distance', '&near=Villeurbanne&radiusKm=200'],
      ] as const) {
        const initial = (await page(`limit=100&sort=${sort}${near}`)).data.map((s) => s.id);
        const removed = new Set<string>();
        const seen: string[] = [];
        let cursor: string | undefined;
        let step = 0;
        do {
          const p = await page(`limit=2&sort=${sort}${near}${cursor ? `&cursor=${cursor}` : ''}`);
          const current = (await page(`limit=100&sort=${sort}${near}`)).data;
          // total is the whole answer as it stands now.
          expect(p.total).toBe(current.length);
          seen.push(...p.data.map((s) => s.id));
          cursor = p.nextCursor;
          // Between pages: a session added before and one after the walk's position, one removed
          // (cancelled), one place taken, a session booked full.
          step++;
          const remaining = current.map((s) => s.id).filter((id) => !seen.includes(id));
          if (step === 1) await addSession('2030-03-05', 100);
          if (step === 1) await addSession('2030-04-19', 400);
          if (step === 2 && remaining[1]) {
            await write('PATCH', `/api/admin/sessions/${remaining[1]}`, { status: 'cancelled' });
            removed.add(remaining[1]);
          }
          if (step === 2 && remaining[0])
            await write('POST', `/api/admin/sessions/${remaining[0]}/places`, { change: -1 });
          if (step === 3 && remaining[2]) {
            await write('PATCH', `/api/admin/sessions/${remaining[2]}`, { spotsAvailable: 0 });
            removed.add(remaining[2]);
          }
        } while (cursor);
        expect(new Set(seen).size, sort).toBe(seen.length);
        for (const id of initial) if (!removed.has(id)) expect(seen, `${sort}: ${id}`).toContain(id);
        // Put things back for the next order: un-cancel, free the place.
        for (const id of removed)
          await write('PATCH', `/api/admin/sessions/${id}`, { status: 'scheduled', spotsAvailable: 5 });
      }
    } finally {
      await t.close();
    }
  });

  it('a cached answer for a near search changes when a place is taken in it', async () => {
    const t = await buildTestApp({ catalogue: CATALOGUE, clock: frozenClock(FIXTURE_NOW) });
    try {
      const keys = await keysFor(t.app, C.lyon3.id);
      const url = '/api/stages?near=Villeurbanne&radiusKm=5&days=saturday';
      const first = (await t.app.inject(url)).json() as List;
      const again = await t.app.inject(url);
      expect(again.json()).toEqual(first);
      const target = S.lyonSat16.id;
      const before = first.data.find((s) => s.id === target)?.spotsAvailable as number;
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${target}/places`,
        headers: keys.admin,
        payload: { change: -1 },
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      await t.app.catalogue.refresh();
      const after = (await t.app.inject(url)).json() as typeof first;
      expect(after.data.find((s) => s.id === target)?.spotsAvailable).toBe(before - 1);
      // A change in a department the search does not reach keeps the cached answer.
      const far = await t.app.inject({
        method: 'POST',
        url: `/api/admin/sessions/${S.parisMon11.id}/places`,
        headers: keys.admin,
        payload: { change: -1 },
      });
      expect(far.statusCode).toBeLessThan(300);
      await t.app.catalogue.refresh();
      expect((await t.app.inject(url)).json().data).toEqual(after.data);
    } finally {
      await t.close();
    }
  });
});
