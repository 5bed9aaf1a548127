import type { Client } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connect.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { buildTestApp, frozenClock, type TestApp, testConfig } from '../helpers/app.js';
import { PERSON, placesLeft, privatePath } from '../helpers/booking.js';
import { type ClaimedAgent, claimedAgent, unclaimedToken } from '../helpers/claim.js';
import { TEST_DB } from '../helpers/database.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../helpers/fixtures.js';
import { bookOnHoldPage, holdIdOf, holdPlace, holdRequest } from '../helpers/holds.js';
import { connect, ERAS } from '../helpers/mcp.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';
import { openStream } from '../helpers/sse.js';

/*
 * Holding a place (issue 26): a client the person claimed with "hold" keeps one place of a session
 * for them; the person books it on the hold's completeUrl, or it goes back on sale (released by the
 * agent, or expired on the service's clock, whichever instance runs the job).
 */

const HOLDER = 'lea.dubois@example.org';
const OTHER = 'marc.petit@example.org';
const TTL_MS = 900_000;

let t: TestApp;
let second: FastifyInstance;
let closeSecondDb: () => Promise<void>;
let smtp: TestSmtpServer;
let secondOrigin: string;
let endpoint: URL;
const clock = frozenClock(FIXTURE_NOW);
let agent: ClaimedAgent;
let other: ClaimedAgent;
// Every answer given to an agent: none may carry anything of the person.
const agentAnswers: string[] = [];

beforeAll(async () => {
  smtp = await startSmtpServer();
  const env = { SMTP_URL: smtp.url, MAIL_FROM: 'Stages <reservations@stages.example.test>' };
  t = await buildTestApp({ catalogue: FIXTURE_CATALOGUE, clock, env });
  // A second instance on the same database: on PostgreSQL with a pool and a LISTEN of its own.
  const db2 = TEST_DB === 'postgres' ? await openDatabase({ kind: 'postgres', url: t.db.url as string }) : undefined;
  closeSecondDb = async () => db2?.close();
  second = await buildApp(testConfig(env), { database: db2 ?? t.db.database, clock, logger: false });
  secondOrigin = await second.listen({ port: 0, host: '127.0.0.1' });
  endpoint = new URL('/api/mcp', await t.app.listen({ port: 0, host: '127.0.0.1' }));
  agent = await claimedAgent(t.app, HOLDER, 'hold alerts');
  other = await claimedAgent(t.app, OTHER, 'hold');
});
afterAll(async () => {
  await second?.close();
  await closeSecondDb?.();
  await t?.close();
  await smtp?.close();
});

async function rest(res: Promise<{ body: string; statusCode: number }>) {
  const answer = await res;
  agentAnswers.push(answer.body);
  return answer as Awaited<ReturnType<typeof holdPlace>>;
}

type ToolAnswer = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { hold?: Record<string, string> };
};
const text = (a: ToolAnswer) => a.content.map((c) => c.text ?? '').join('\n');

async function tool(token: string | undefined, name: string, args: Record<string, unknown>, era = ERAS[0]) {
  const client: Client = await connect(
    endpoint,
    era as (typeof ERAS)[number],
    token ? { authorization: `Bearer ${token}` } : {},
  );
  try {
    const out = (await client.callTool({ name, arguments: args })) as ToolAnswer;
    agentAnswers.push(JSON.stringify(out));
    return out;
  } finally {
    await client.close();
  }
}

/** Places on sale as both instances show them (the second reads the change from the database). */
/** Places left as each instance serves them once it has caught up (the write was on either). */
async function placesOnBoth(sessionId: string): Promise<[number, number]> {
  await Promise.all([t.app.catalogue.refresh(), second.catalogue.refresh()]);
  return [await placesLeft(t.app, sessionId), await placesLeft(second, sessionId)];
}

describe('hold_place and POST /api/stages/{id}/holds', () => {
  it('takes one place off sale at once, seen by another instance; the hold says until when and where to book', async () => {
    const id = SESSIONS.stEtienneMar5.id;
    expect(await placesOnBoth(id)).toEqual([12, 12]);
    const res = await rest(holdPlace(t.app, agent.token, id));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const hold = res.json();
    expect(hold).toEqual({
      holdId: expect.stringMatching(/^hld_[A-Za-z0-9_-]{22}$/),
      sessionId: id,
      state: 'active',
      expiresAt: new Date(Date.parse(FIXTURE_NOW) + TTL_MS).toISOString(),
      completeUrl: `https://stages.example.test/stages/${id}/reservation?hold=${hold.holdId}`,
      createdAt: new Date(FIXTURE_NOW).toISOString(),
    });
    expect(res.headers.location).toBe(`/api/holds/${hold.holdId}`);
    expect(await placesOnBoth(id)).toEqual([11, 11]);
    // Its state, read by id, on the other instance too.
    const read = await rest(holdRequest(second, 'GET', agent.token, hold.holdId));
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(hold);
    // Another claim's client does not see it.
    expect((await rest(holdRequest(t.app, 'GET', other.token, hold.holdId))).statusCode).toBe(404);
  });

  it('gives the same hold for the same idempotency key, on MCP and REST, and takes no second place', async () => {
    const id = SESSIONS.ajaccioMar13.id;
    const first = await tool(agent.token, 'hold_place', { sessionId: id, idempotencyKey: 'voyage-ajaccio' });
    expect(first.isError, text(first)).toBeFalsy();
    const hold = first.structuredContent?.hold as Record<string, string>;
    expect(hold.state).toBe('active');
    expect(text(first)).toContain(hold.completeUrl as string);
    expect(text(first)).toContain('they book it themselves');
    const again = await tool(agent.token, 'hold_place', { sessionId: id, idempotencyKey: 'voyage-ajaccio' }, ERAS[1]);
    expect(again.structuredContent?.hold).toEqual(hold);
    const overRest = await rest(holdPlace(second, agent.token, id, { idempotencyKey: 'voyage-ajaccio' }));
    expect(overRest.statusCode).toBe(200);
    expect(overRest.json()).toEqual(hold);
    expect(await placesOnBoth(id)).toEqual([9, 9]);
    // The same key for another session is a mistake, said as such.
    const reused = await rest(
      holdPlace(t.app, agent.token, SESSIONS.bourgMar14.id, { idempotencyKey: 'voyage-ajaccio' }),
    );
    expect(reused.statusCode).toBe(409);
    expect(reused.json()).toMatchObject({ code: 'idempotency_key_reused', errors: [{ name: 'idempotencyKey' }] });
    // Released: the place goes back, and the key still names that hold, now released.
    const released = await tool(agent.token, 'release_hold', { holdId: hold.holdId });
    expect(released.isError, text(released)).toBeFalsy();
    expect(released.structuredContent?.hold?.state).toBe('released');
    expect(await placesOnBoth(id)).toEqual([10, 10]);
    const after = await tool(agent.token, 'hold_place', { sessionId: id, idempotencyKey: 'voyage-ajaccio' });
    expect(after.structuredContent?.hold?.state).toBe('released');
    expect(await placesOnBoth(id)).toEqual([10, 10]);
  });

  it('refuses clearly: a second hold of the session, a fourth at once, a full session, an unknown one', async () => {
    const sameSession = await rest(holdPlace(t.app, agent.token, SESSIONS.stEtienneMar5.id));
    expect(sameSession.statusCode).toBe(409);
    expect(sameSession.headers['content-type']).toContain('application/problem+json');
    expect(sameSession.json()).toMatchObject({ code: 'already_held' });
    expect(sameSession.json().detail).toContain('one hold per person and session');

    const full = await rest(holdPlace(t.app, agent.token, SESSIONS.parisMar6Full.id));
    expect(full.statusCode).toBe(409);
    expect(full.json()).toMatchObject({ code: 'no_places', errors: [{ name: 'sessionId' }] });
    const fullMcp = await tool(agent.token, 'hold_place', { sessionId: SESSIONS.lyonApr2Full.id });
    expect(fullMcp.isError).toBe(true);
    expect(text(fullMcp)).toContain('no_places: This session has no place left to hold');

    const unknown = await rest(holdPlace(t.app, agent.token, '00000000-0000-4000-8000-000000000000'));
    expect(unknown.statusCode).toBe(404);
    const badId = await tool(agent.token, 'hold_place', { sessionId: 'pas-un-id' });
    expect(badId.isError).toBe(true);
    expect(text(badId)).toContain('Invalid argument sessionId');
    expect((await rest(holdPlace(t.app, agent.token, 'pas-un-id'))).statusCode).toBe(400);

    // Three at once (one is held already, on Saint-Étienne): the fourth is refused, nothing taken.
    for (const s of [SESSIONS.bourgMar14, SESSIONS.reunionMar19])
      expect((await rest(holdPlace(t.app, agent.token, s.id))).statusCode).toBe(201);
    const before = await placesLeft(t.app, SESSIONS.lyonMar5.id);
    const fourth = await rest(holdPlace(t.app, agent.token, SESSIONS.lyonMar5.id));
    expect(fourth.statusCode).toBe(409);
    expect(fourth.json().code).toBe('too_many_holds');
    expect(fourth.json().detail).toContain('3 places held');
    expect(await placesLeft(t.app, SESSIONS.lyonMar5.id)).toBe(before);
    // Another person's agent is not limited by this person's holds.
    expect((await rest(holdPlace(t.app, other.token, SESSIONS.lyonMar5.id))).statusCode).toBe(201);
  });

  it('releases: DELETE gives the place back at once; again, the hold as it is; another claim’s is 404', async () => {
    const list = [SESSIONS.bourgMar14.id, SESSIONS.reunionMar19.id];
    const held = await rest(holdPlace(t.app, agent.token, list[0] as string));
    // Already held (previous test): the detail names this claim's own hold.
    const holdId = /hold (hld_[A-Za-z0-9_-]{22})/.exec(held.json().detail)?.[1] as string;
    expect(holdId).toBeDefined();
    expect((await rest(holdRequest(t.app, 'DELETE', other.token, holdId))).statusCode).toBe(404);
    const before = await placesLeft(t.app, list[0] as string);
    const released = await rest(holdRequest(second, 'DELETE', agent.token, holdId));
    expect(released.statusCode).toBe(200);
    expect(released.json().state).toBe('released');
    expect(await placesOnBoth(list[0] as string)).toEqual([before + 1, before + 1]);
    const again = await rest(holdRequest(t.app, 'DELETE', agent.token, holdId));
    expect(again.statusCode).toBe(200);
    expect(again.json().state).toBe('released');
    expect(await placesLeft(t.app, list[0] as string)).toBe(before + 1);
    expect((await rest(holdRequest(t.app, 'DELETE', agent.token, 'pas-un-id'))).statusCode).toBe(400);
  });
});

describe('expiry, on the service’s clock', () => {
  it('gives the place back by itself at expiresAt, on whichever instance runs the job; the change stream shows it', async () => {
    const id = SESSIONS.reunionMar19.id;
    const [placesNow] = await placesOnBoth(id);
    const stream = await openStream(`${secondOrigin}/api/stages/events`);
    try {
      await stream.until((events) => events.some((e) => e.event === 'ready'));
      // Nothing is due before its time.
      clock.set(new Date(Date.parse(FIXTURE_NOW) + TTL_MS - 1000).toISOString());
      await second.jobs.drain();
      expect(await placesOnBoth(id)).toEqual([placesNow, placesNow]);
      clock.set(new Date(Date.parse(FIXTURE_NOW) + TTL_MS).toISOString());
      await second.jobs.drain();
      expect(await placesOnBoth(id)).toEqual([placesNow + 1, placesNow + 1]);
      await stream.until(() => stream.sessions().some((s) => s.id === id && s.spotsAvailable === placesNow + 1));
    } finally {
      await stream.close();
    }
    // Saint-Étienne's hold (the first test's) expired with it; the agent reads "expired".
    expect(await placesLeft(t.app, SESSIONS.stEtienneMar5.id)).toBe(12);
    const holds = await rest(holdPlace(t.app, agent.token, id, { idempotencyKey: 'apres-expiration' }));
    expect(holds.statusCode).toBe(201);
  });
});

describe('completing on completeUrl', () => {
  it('books the held place, even the last one, in one transaction: no second place taken, never given back', async () => {
    clock.set(FIXTURE_NOW);
    const id = SESSIONS.parisMar12.id; // one place left
    const res = await rest(holdPlace(t.app, other.token, id));
    expect(res.statusCode, res.body).toBe(201);
    const hold = res.json();
    expect(await placesOnBoth(id)).toEqual([0, 0]);
    // Nobody else can book it now, from the session page.
    const pageNow = await t.app.inject(`/stages/${id}`);
    expect(pageNow.body).not.toContain('Réserver ma place');

    const {
      page,
      hold: field,
      posted,
    } = await bookOnHoldPage(second, hold.completeUrl, {
      ...PERSON,
      email: OTHER,
    });
    // Paris, in March: UTC+1. Held until 10 h 15.
    expect(page.html).toContain('mise de côté pour vous jusqu’à <strong>10\u00a0h\u00a015</strong>');
    expect(field).toBe(hold.holdId);
    expect(posted.statusCode, posted.body).toBe(303);
    const reservation = await second.inject(privatePath(posted.headers.location));
    expect(reservation.statusCode).toBe(200);
    expect(await placesOnBoth(id)).toEqual([0, 0]);

    const state = await rest(holdRequest(t.app, 'GET', other.token, hold.holdId));
    expect(state.json().state).toBe('completed');
    const release = await rest(holdRequest(t.app, 'DELETE', other.token, hold.holdId));
    expect(release.statusCode).toBe(409);
    expect(release.json().code).toBe('hold_completed');
    // Its expiry passes: the place stays the reservation's.
    clock.set(new Date(Date.parse(FIXTURE_NOW) + TTL_MS + 60_000).toISOString());
    await t.app.jobs.drain();
    expect(await placesOnBoth(id)).toEqual([0, 0]);
    // The page again: the hold was used; the session is full.
    const used = await t.app.inject(holdIdPath(hold.completeUrl));
    expect(used.body).toContain('Cette place mise de côté a déjà été réservée');
    clock.set(FIXTURE_NOW);
  });

  it('an expired hold’s page says so and books a place on sale if one is left', async () => {
    const id = SESSIONS.lyonMar5.id;
    const res = await rest(holdPlace(t.app, agent.token, id, { idempotencyKey: 'lyon' }));
    expect(res.statusCode, res.body).toBe(201);
    const hold = res.json();
    const held = await placesLeft(t.app, id);
    clock.set(new Date(Date.parse(FIXTURE_NOW) + TTL_MS).toISOString());
    await t.app.jobs.drain();
    expect(await placesLeft(t.app, id)).toBe(held + 1);
    const {
      page,
      hold: field,
      posted,
    } = await bookOnHoldPage(t.app, hold.completeUrl, {
      ...PERSON,
      email: HOLDER,
    });
    expect(field).toBeUndefined();
    expect(page.html).toContain('Le délai de la place mise de côté pour vous est passé (10\u00a0h\u00a015)');
    expect(posted.statusCode, posted.body).toBe(303);
    expect(await placesLeft(t.app, id)).toBe(held);
    expect(holdIdOf(hold.completeUrl)).toBe(hold.holdId);
    clock.set(FIXTURE_NOW);
  });

  it('a hold link that is not one says so', async () => {
    const res = await t.app.inject(`/stages/${SESSIONS.bourgMar14.id}/reservation?hold=hld_pasunvraiidentifiant00`);
    expect(res.statusCode).toBe(200);
    // The link is a capability: sent as a referrer to this site only, never cached.
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('Ce lien de place mise de côté n’est pas valable');
  });
});

function holdIdPath(completeUrl: string): string {
  const url = new URL(completeUrl);
  return `${url.pathname}${url.search}`;
}

describe('who may hold', () => {
  it('gives anonymous and unclaimed callers the claim instructions; a token without "hold" insufficient_scope', async () => {
    const id = SESSIONS.bourgMar14.id;
    for (const token of [undefined, await unclaimedToken(t.app)]) {
      const out = await tool(token, 'hold_place', { sessionId: id });
      expect(out.isError).toBe(true);
      expect(text(out)).toContain('POST /api/oauth/claim');
      expect(text(out)).toContain('"hold"');
      const res = await rest(holdPlace(t.app, token, id));
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toContain('POST /api/oauth/claim');
    }
    for (const token of [agent.readToken, (await claimedAgent(t.app, 'jeanne@example.org', 'alerts')).token]) {
      const out = await tool(token, 'hold_place', { sessionId: id });
      expect(out.isError).toBe(true);
      expect(text(out)).toContain('insufficient_scope (scope "hold")');
      const res = await rest(holdPlace(t.app, token, id));
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('insufficient_scope');
      expect(res.headers['www-authenticate']).toContain('scope="read hold"');
    }
  });

  it('refuses a withdrawn claim’s token at once, on every instance', async () => {
    const withdrawn = await claimedAgent(t.app, 'paul@example.org', 'hold');
    const browser = await signIn(t.app, 'paul@example.org', new Browser(t.app));
    const list = await browser.get('/mon-espace/agents');
    const action = /action="(\/mon-espace\/agents\/[^"]+\/retrait)"/.exec(list.body)?.[1] as string;
    expect((await browser.post(action, { _csrf: Browser.token(list.body) })).statusCode).toBe(303);
    for (const app of [t.app, second]) {
      const res = await rest(holdPlace(app, withdrawn.token, SESSIONS.bourgMar14.id));
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
    }
  });

  it('never gave an agent the person’s email, name or phone', () => {
    expect(agentAnswers.length).toBeGreaterThan(30);
    for (const answer of agentAnswers)
      for (const secret of [HOLDER, OTHER, PERSON.firstName, PERSON.lastName, '06 12 34 56 78', '+33612345678'])
        expect(answer).not.toContain(secret);
  });
});
