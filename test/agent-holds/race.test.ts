import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { placesLeft } from '../helpers/booking.js';
import { type ClaimedAgent, claimedAgent } from '../helpers/claim.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { holdPlace } from '../helpers/holds.js';

/*
 * 30 agents, each claimed by a person of their own, hold the last 5 places of a session at once,
 * through two instances (on PostgreSQL, each with its own pool): the places model's conditional
 * UPDATE lets exactly 5 through; the others are told clearly that no place is left.
 */

const SESSION = { ...SESSIONS.lyonMar5Early, spotsAvailable: 5 };
const AGENTS = 30;

let t: TestApp;
let second: FastifyInstance;
let closeSecondDb: () => Promise<void>;
const agents: ClaimedAgent[] = [];

beforeAll(async () => {
  const catalogue = {
    ...FIXTURE_CATALOGUE,
    sessions: FIXTURE_CATALOGUE.sessions.map((s) => (s.id === SESSION.id ? SESSION : s)),
  };
  const clock = frozenClock(FIXTURE_NOW);
  t = await buildTestApp({ catalogue, clock });
  const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  closeSecondDb = async () => db2?.close();
  second = await buildApp(testConfig(), { database: db2 ?? t.db.database, clock, logger: false });
  await second.ready();
  for (let i = 0; i < AGENTS; i++) agents.push(await claimedAgent(t.app, `personne${i}@example.org`, 'hold'));
}, 120_000);
afterAll(async () => {
  await second?.close();
  await closeSecondDb?.();
  await t?.close();
});

describe(`${AGENTS} agents hold the last 5 places at once, on two instances`, () => {
  it('makes exactly 5 holds and 25 clear refusals; on sale plus held add up, on both instances', async () => {
    expect(await placesLeft(t.app, SESSION.id)).toBe(5);
    const answers = await Promise.all(
      agents.map((agent, i) => holdPlace(i % 2 ? second : t.app, agent.token, SESSION.id)),
    );
    const held = answers.filter((a) => a.statusCode === 201);
    const refused = answers.filter((a) => a.statusCode !== 201);
    expect(held).toHaveLength(5);
    expect(refused).toHaveLength(AGENTS - 5);
    for (const r of refused) {
      expect(r.statusCode).toBe(409);
      expect(r.headers['content-type']).toContain('application/problem+json');
      expect(r.json()).toMatchObject({ code: 'no_places' });
    }
    expect(new Set(held.map((h) => h.json().holdId)).size).toBe(5);
    await second.catalogue.refresh();
    await t.app.catalogue.refresh();
    expect(await placesLeft(t.app, SESSION.id)).toBe(0);
    expect(await placesLeft(second, SESSION.id)).toBe(0);
    // The group as the operators see it: nothing on sale, the 5 places held here, none lost.
    const result = await t.app.database.db.execute(
      sql`select spots_available, held_here, (select count(*) from place_holds where session_id = ${SESSION.id} and state = 'active')::int as holds from stage_sessions where id = ${SESSION.id}`,
    );
    const [row] = (result as unknown as { rows: Array<Record<string, number>> }).rows;
    expect(row).toEqual({ spots_available: 0, held_here: 5, holds: 5 });
  });

  it('one person’s agent asking 5 holds at once, on both instances, gets 3 (the most at once) and 2 clear refusals', async () => {
    const agent = await claimedAgent(t.app, 'pressee@example.org', 'hold');
    const sessions = [
      SESSIONS.lyonMar5,
      SESSIONS.stEtienneMar5,
      SESSIONS.ajaccioMar13,
      SESSIONS.bourgMar14,
      SESSIONS.reunionMar19,
    ];
    const answers = await Promise.all(
      sessions.map((s, i) => holdPlace(i % 2 ? second : t.app, agent.token, s.id, { idempotencyKey: 'la-meme' + i })),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(3);
    const refused = answers.filter((a) => a.statusCode !== 201);
    expect(refused.map((r) => [r.statusCode, r.json().code])).toEqual([
      [409, 'too_many_holds'],
      [409, 'too_many_holds'],
    ]);
  });
});
