import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { replaceCatalogue } from '../../src/catalogue/repository.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { openTestDatabase } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS } from '../helpers/mcp.js';

/*
 * POST /api/eligibility and check_eligibility: one answer through both doors, bad input refused by
 * field name, and nothing a person says about their licence in a log line. Fixture today: 2030-03-04.
 */

// A 48N received on 6 November: the four months end on 6 March, the second day of Lyon's 5 March course.
const ASKED = {
  letter48nReceivedOn: '2029-11-06',
  probationStartedOn: '2028-06-17',
  pointsLeft: 3,
  // The fixture centres stand at 45,4 (Paris and La Réunion apart).
  near: '45,4',
};

describe('eligibility over REST and MCP', () => {
  let t: TestApp;
  let endpoint: URL;
  const lines: string[] = [];

  beforeAll(async () => {
    const db = await openTestDatabase();
    await replaceCatalogue(db.database.db, FIXTURE_CATALOGUE);
    const app = await buildApp(testConfig({ LOG_LEVEL: 'info', LOG_SAMPLE_READS: '1' }), {
      database: db.database,
      clock: frozenClock(FIXTURE_NOW),
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    await app.ready();
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    endpoint = new URL('/api/mcp', address);
    t = { app, db, close: async () => {} };
  });
  afterAll(async () => {
    await t.app.close();
    await t.db.dispose();
  });

  async function rest(body: unknown) {
    return t.app.inject({ method: 'POST', url: '/api/eligibility', payload: body as Record<string, unknown> });
  }

  it('answers with the deadline, the points and sessions that end in time, each rule with its sources', async () => {
    const res = await rest(ASKED);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toMatchObject({ givesPoints: 'yes', maxPoints: 4, ceiling: 8, deadline: '2030-03-06' });
    expect(body.rules.map((r: { code: string }) => r.code)).toEqual(
      expect.arrayContaining(['compulsory-48n', 'fine-refunded', 'deadline-missed-sanctions', 'probation-ceiling']),
    );
    for (const rule of body.rules) expect(rule.sources.length).toBeGreaterThan(0);
    expect(body.rules.find((r: { code: string }) => r.code === 'compulsory-48n').sources[0].title).toBe(
      'Code de la route, article R223-4',
    );
    const ids = body.sessions.map((s: { id: string }) => s.id);
    expect(ids).toContain(SESSIONS.lyonMar5.id);
    expect(ids).not.toContain(SESSIONS.lyonApr2Full.id);
    for (const s of body.sessions) {
      expect(s.day2 <= '2030-03-06').toBe(true);
      expect(s.bookingUrl).toMatch(/^https:\/\/stages\.example\.test\/stages\//);
    }
    expect(body.sessions[0].pointsFrom).toBe('2030-03-07');
  });

  it('gives the same answer through check_eligibility', async () => {
    for (const era of [ERAS[0], ERAS[1]]) {
      const client = await connect(endpoint, era as (typeof ERAS)[number]);
      try {
        const tools = await client.listTools();
        const tool = tools.tools.find((x) => x.name === 'check_eligibility');
        expect(tool?.annotations?.readOnlyHint).toBe(true);
        // tools/list is shared by every tool: this one stays small.
        expect(JSON.stringify(tool).length).toBeLessThanOrEqual(3072);
        const out = await client.callTool({ name: 'check_eligibility', arguments: ASKED });
        expect(out.isError).toBeFalsy();
        expect(out.structuredContent).toEqual((await rest(ASKED)).json());
        expect(JSON.stringify(out.content)).toContain('R223-4');
      } finally {
        await client.close();
      }
    }
  });

  it.each([
    [{ letter48nReceivedOn: '2030-03-05' }, 'letter48nReceivedOn', /after today/],
    [{ lastCourseEndedOn: '2031-01-01' }, 'lastCourseEndedOn', /after today/],
    [{ pointsLeft: 13 }, 'pointsLeft', /0 to 12/],
    [{ pointsLeft: -1 }, 'pointsLeft', /0 to 12/],
    [{ letter48si: true, pointsLeft: 2 }, 'pointsLeft', /48SI/],
    [{ near: 'Xyzzyqwville' }, 'near', /./],
    [{ near: '☃☃☃' }, 'near', /near/],
    [{ points: 3 }, 'body', /unknown argument "points"/],
  ])('refuses %j naming %s, on both doors', async (input, name, reason) => {
    const res = await rest(input);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = res.json();
    expect(problem.errors[0].name).toBe(name);
    expect(problem.errors[0].reason).toMatch(reason);
    const client = await connect(endpoint, ERAS[0] as (typeof ERAS)[number]);
    try {
      const out = await client.callTool({ name: 'check_eligibility', arguments: input });
      expect(out.isError).toBe(true);
      const text = (out.content as { text: string }[]).map((c) => c.text).join('\n');
      if (name !== 'body') expect(text).toContain(name);
      expect(text).toMatch(reason);
    } finally {
      await client.close();
    }
  });

  it('never writes what was asked or answered to the log', async () => {
    lines.length = 0;
    const asked = { ...ASKED, lastCourseEndedOn: '2029-01-23', near: '45.01,4.01' };
    const res = await rest(asked);
    expect(res.statusCode).toBe(200);
    const client = await connect(endpoint, ERAS[0] as (typeof ERAS)[number]);
    await client.callTool({ name: 'check_eligibility', arguments: asked });
    await client.callTool({ name: 'check_eligibility', arguments: { ...asked, pointsLeft: 13 } });
    await client.close();
    await rest({ ...asked, letter48nReceivedOn: '2031-02-02' });
    const log = lines.join('\n');
    expect(log).toContain('/api/eligibility');
    for (const secret of ['2029-11-06', '2028-06-17', '2029-01-23', '2031-02-02', '45.01', 'givesPoints', 'R223']) {
      expect(log).not.toContain(secret);
    }
  });

  it('is described in the OpenAPI document with its answer schema', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const op = doc.paths['/api/eligibility'].post;
    expect(op.operationId).toBe('checkEligibility');
    expect(op.requestBody.content['application/json'].schema).toBeDefined();
    expect(op.responses['200'].content['application/json'].schema).toBeDefined();
    expect(op.responses['400']).toBeDefined();
  });
});

describe('eligibility answers follow the service clock', () => {
  it('counts the once-a-year limit from today as the clock says', async () => {
    const clock = frozenClock('2030-03-04T09:00:00Z');
    const t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock });
    try {
      const ask = () =>
        t.app.inject({ method: 'POST', url: '/api/eligibility', payload: { lastCourseEndedOn: '2029-03-04' } });
      expect((await ask()).json()).toMatchObject({ givesPoints: 'no', nextCountableFrom: '2030-03-05' });
      clock.set('2030-03-05T09:00:00Z');
      expect((await ask()).json()).toMatchObject({ givesPoints: 'yes', earliestStart: '2030-03-05' });
    } finally {
      await t.close();
    }
  });
});
