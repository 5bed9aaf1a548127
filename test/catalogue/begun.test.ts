import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CentreRecord, SessionRecord } from '../../src/catalogue/read-model.js';
import { buildTestApp, frozenClock, type TestApp } from '../helpers/app.js';
import { openForm, submit } from '../helpers/booking.js';
import { CENTRES, FIXTURE_CATALOGUE } from '../helpers/fixtures.js';

/*
 * A session stops being listed and bookable at its start (day1 at startTime in its centre's zone),
 * not at the next midnight; every cache in front of it turns then. Frozen clock; the database's own
 * clock (2026) is far before these 2030 starts, so a booking the service lets through is taken.
 */

const cayenne: CentreRecord = {
  ...CENTRES.reunion,
  id: '00000000-0000-4000-8000-000000000973',
  slug: 'centre-cayenne',
  name: 'Centre Cayenne',
  city: 'Cayenne',
  postalCode: '97300',
  deptCode: '973',
  agrementNumber: 'R2297300007',
};

const session = (id: string, centre: CentreRecord, day1: string, startTime: string): SessionRecord => ({
  id: `20000000-0000-4000-8000-${id}`,
  centreId: centre.id,
  courseNumber: `B-${id}`,
  day1,
  day2: `${day1.slice(0, 8)}${String(Number(day1.slice(8)) + 1).padStart(2, '0')}`,
  startTime,
  endTime: '16:30',
  priceCents: 23000,
  capacity: 20,
  spotsAvailable: 10,
});

const CASES = [
  // 08:30 in Paris (winter, UTC+1).
  {
    name: 'Paris, 08:30',
    dept: '75',
    s: session('000000000001', CENTRES.paris, '2030-03-04', '08:30'),
    at: '2030-03-04T07:30:00Z',
  },
  // 01:30 on the 5th in La Réunion (UTC+4) is 22:30 on the 4th in Paris: the dates differ.
  {
    name: 'La Réunion, 01:30',
    dept: '974',
    s: session('000000000002', CENTRES.reunion, '2030-03-05', '01:30'),
    at: '2030-03-04T21:30:00Z',
  },
  // 20:30 on the 4th in Guyane (UTC−3) is 00:30 on the 5th in Paris: the dates differ the other way.
  {
    name: 'Guyane, 20:30',
    dept: '973',
    s: session('000000000003', cayenne, '2030-03-04', '20:30'),
    at: '2030-03-04T23:30:00Z',
  },
];

const minuteBefore = (iso: string) => new Date(Date.parse(iso) - 60_000).toISOString();

let t: TestApp;
const clock = frozenClock('2030-03-04T06:00:00Z');
beforeAll(async () => {
  t = await buildTestApp({
    catalogue: {
      centres: [...FIXTURE_CATALOGUE.centres, cayenne],
      sessions: [...FIXTURE_CATALOGUE.sessions, ...CASES.map((c) => c.s)],
    },
    clock,
  });
});
afterAll(() => t?.close());

const status = async (id: string) => (await t.app.inject(`/api/stages/${id}`)).json().status;
const listed = async (dept: string) => {
  const res = await t.app.inject(`/api/stages?dept=${dept}&includeUnavailable=true`);
  return { ids: (res.json().data as { id: string }[]).map((s) => s.id), etag: String(res.headers.etag) };
};
const mcpSearch = async (dept: string) => {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'search_stages', arguments: { dept, includeUnavailable: true } },
    },
  });
  return (res.json().result.structuredContent.data as { id: string }[]).map((s) => s.id);
};

describe.each(CASES)('a session starting $name', ({ dept, s, at }) => {
  it('is listed and bookable the minute before, past and in no list from its start: REST, MCP, the page, their caches', async () => {
    clock.set(minuteBefore(at));
    expect(await status(s.id)).toBe('available');
    // Asked twice: the second answer comes from each cache.
    const before = await listed(dept);
    expect((await listed(dept)).etag).toBe(before.etag);
    expect(before.ids).toContain(s.id);
    expect(await mcpSearch(dept)).toContain(s.id);
    expect(await mcpSearch(dept)).toContain(s.id);
    const page = await t.app.inject(`/stages/${s.id}`);
    expect(page.body).toContain(`action="/stages/${s.id}/reservation#reserver"`);

    clock.set(at);
    expect(await status(s.id)).toBe('past');
    const after = await listed(dept);
    expect(after.ids).not.toContain(s.id);
    expect(after.etag).not.toBe(before.etag);
    expect(await mcpSearch(dept)).not.toContain(s.id);
    const begun = await t.app.inject(`/stages/${s.id}`);
    expect(begun.body).not.toContain(`/stages/${s.id}/reservation`);
    expect(begun.body).toContain('Ce stage a commencé le');
    expect(begun.headers.etag).not.toBe(page.headers.etag);
  });
});

describe('booking around the start', () => {
  it('takes a place at 08:29 in Paris and refuses as closed at 08:30, storing nothing', async () => {
    const { s, at } = CASES[0] as (typeof CASES)[number];
    clock.set(minuteBefore(at));
    const form = await openForm(t.app, `/stages/${s.id}`);
    const booked = await submit(t.app, s.id, form);
    expect(booked.statusCode).toBe(303);
    expect((await t.app.inject(`/api/stages/${s.id}`)).json().spotsAvailable).toBe(9);

    clock.set(at);
    const late = await submit(t.app, s.id, form, {
      firstName: 'Jean',
      lastName: 'Martin',
      email: 'jean.martin@example.org',
      phone: '06 98 76 54 32',
      reason: 'voluntary',
      consent: 'yes',
    });
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('Ce stage a commencé le');
    expect((await t.app.inject(`/api/stages/${s.id}`)).json().spotsAvailable).toBe(9);
  });
});
