import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AlertWorld, alertWorld, askAlert, mailsTo } from '../alerts/alert-helpers.js';
import { Browser, signIn } from '../helpers/accounts.js';
import { keysFor } from '../helpers/admin-keys.js';
import { claimedAgent, unclaimedToken } from '../helpers/claim.js';
import { CENTRES, SESSIONS } from '../helpers/fixtures.js';
import { connect, ERAS } from '../helpers/mcp.js';

/*
 * Alerts for agents (issue 26): a client the person claimed, with "alerts" granted, sets the
 * people's-area alerts for them through MCP (`watches`) or REST (/api/watches); the emails go to
 * the person; the agent sees and removes only the alerts of its claim, never the person's email.
 */

const PERSON = 'lea.dubois@example.org';
const OTHER = 'marc.petit@example.org';
const FULL = SESSIONS.lyonApr2Full.id;
const OPEN = SESSIONS.lyonMar5.id;

let w: AlertWorld;
let endpoint: URL;
let alerts: Awaited<ReturnType<typeof claimedAgent>>;
let other: Awaited<ReturnType<typeof claimedAgent>>;
// Every answer given to an agent: none may carry the person's email.
const agentAnswers: string[] = [];

beforeAll(async () => {
  w = await alertWorld();
  const address = await w.app.listen({ port: 0, host: '127.0.0.1' });
  endpoint = new URL('/api/mcp', address);
  alerts = await claimedAgent(w.app, PERSON);
  other = await claimedAgent(w.app, OTHER);
});
afterAll(async () => w.close());

type ToolAnswer = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

async function mcp(token: string | undefined, era = ERAS[0]) {
  return connect(endpoint, era as (typeof ERAS)[number], token ? { authorization: `Bearer ${token}` } : {});
}

async function call(client: Client, args: Record<string, unknown>): Promise<ToolAnswer> {
  const out = (await client.callTool({ name: 'watches', arguments: args })) as ToolAnswer;
  agentAnswers.push(JSON.stringify(out));
  return out;
}

/** A successful answer's structured content. */
function data(a: ToolAnswer): Record<string, unknown> {
  expect(a.structuredContent, text(a)).toBeDefined();
  return a.structuredContent as Record<string, unknown>;
}

const text = (a: ToolAnswer) => a.content.map((c) => c.text ?? '').join('\n');

async function rest(method: string, url: string, token: string | undefined, payload?: object) {
  const res = await w.app.inject({
    method: method as 'GET',
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(payload ? { payload } : {}),
  });
  agentAnswers.push(res.body);
  return res;
}

describe('watches (MCP, official SDK client) for a claimed agent with "alerts"', () => {
  let sessionWatchId = '';

  it('watches a full session: the alert is the person’s, running, in /mon-espace/alertes', async () => {
    const client = await mcp(alerts.token);
    const out = await call(client, { action: 'session', sessionId: FULL });
    await client.close();
    expect(out.isError, text(out)).toBeFalsy();
    const watch = data(out).watch as Record<string, unknown>;
    expect(watch).toMatchObject({ sessionId: FULL, search: null, confirmed: true, lastSentAt: null });
    // It ends when the session starts.
    expect(String(watch.endsAt)).toMatch(/^2030-04-02T/);
    sessionWatchId = watch.id as string;
    // Nothing is emailed when it is made: the person's consent to "alerts" was the opt-in.
    await w.app.jobs.drain();
    expect(mailsTo(w.smtp, PERSON)).toHaveLength(0);

    const browser = await signIn(w.app, PERSON, new Browser(w.app));
    const page = await browser.get('/mon-espace/alertes');
    expect(page.body).toContain('Une place libre pour le stage des mardi 2 avril 2030 et mercredi 3 avril 2030 à Lyon');
    expect(page.body).toContain('Active, jusqu’au début du stage');
  });

  it('asking again gives the same alert back; the same session for another person is their own alert', async () => {
    const client = await mcp(alerts.token);
    const again = await call(client, { action: 'session', sessionId: FULL });
    await client.close();
    expect((data(again).watch as { id: string }).id).toBe(sessionWatchId);
    const theirs = await mcp(other.token);
    const out = await call(theirs, { action: 'session', sessionId: FULL });
    await theirs.close();
    expect((data(out).watch as { id: string }).id).not.toBe(sessionWatchId);
  });

  it('emails the person once when a place frees up, with a one-click unsubscribe', async () => {
    const keys = await keysFor(w.app, CENTRES.lyon.id);
    const added = await w.app.inject({
      method: 'POST',
      url: `/api/admin/sessions/${FULL}/places`,
      headers: keys.partner,
      payload: { change: 1 },
    });
    expect(added.statusCode, added.body).toBe(200);
    await w.app.jobs.drain();
    const told = mailsTo(w.smtp, PERSON);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain(`/stages/${FULL}`);
    expect(told[0]?.headers['list-unsubscribe']).toMatch(/^<https:\/\/stages\.example\.test\/alertes\/arret\/[^>]+>$/);
    expect(told[0]?.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    await w.app.jobs.drain();
    expect(mailsTo(w.smtp, PERSON)).toHaveLength(1);
    // The agent sees that it was sent, and never to whom.
    const client = await mcp(alerts.token, ERAS[1]);
    const list = await call(client, { action: 'list' });
    await client.close();
    const watches = data(list).watches as Array<{ id: string; lastSentAt: string | null }>;
    expect(watches.find((x) => x.id === sessionWatchId)?.lastSentAt).toBe(w.clock.now().toISOString());
  });

  it('watches a search; lists only this claim’s alerts; removes one; another’s id is not found', async () => {
    // The person's own alert made on the site is theirs only: the agent does not list it.
    await askAlert(w.app, '/?city=Paris', PERSON);
    const client = await mcp(alerts.token);
    const made = await call(client, { action: 'search', city: 'Lyon', to: '2030-06-30', maxPrice: 250 });
    expect(made.isError, text(made)).toBeFalsy();
    const search = data(made).watch as { id: string; search: unknown };
    expect(search.search).toEqual({ city: 'Lyon', to: '2030-06-30', maxPrice: 250 });

    const list = await call(client, { action: 'list' });
    const ids = (data(list).watches as Array<{ id: string }>).map((x) => x.id).sort();
    expect(ids).toEqual([sessionWatchId, search.id].sort());
    expect(Object.keys((data(list).watches as object[])[0] as object).sort()).toEqual(
      ['confirmed', 'endsAt', 'id', 'lastSentAt', 'search', 'sessionId'].sort(),
    );

    const theirs = await mcp(other.token);
    const theirList = await call(theirs, { action: 'list' });
    const theirId = (data(theirList).watches as Array<{ id: string }>)[0]?.id as string;
    await theirs.close();
    const refused = await call(client, { action: 'remove', alertId: theirId });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('No alert of this client');

    const removed = await call(client, { action: 'remove', alertId: search.id });
    expect(removed.isError, text(removed)).toBeFalsy();
    const after = await call(client, { action: 'list' });
    expect((data(after).watches as Array<{ id: string }>).map((x) => x.id)).toEqual([sessionWatchId]);
    await client.close();
    // The other person's alert is still there.
    const still = await mcp(other.token);
    expect((data(await call(still, { action: 'list' })).watches as unknown[]).length).toBe(1);
    await still.close();
  });

  it('refuses clearly: a session with places, a bad criterion, a session that does not exist', async () => {
    const client = await mcp(alerts.token);
    const open = await call(client, { action: 'session', sessionId: OPEN });
    expect(open.isError).toBe(true);
    expect(text(open)).toContain('not_full');
    const noPlace = await call(client, { action: 'search', maxPrice: 200 });
    expect(noPlace.isError).toBe(true);
    expect(text(noPlace)).toContain('a search alert needs a place');
    const unknown = await call(client, { action: 'session', sessionId: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('No session with this id can be watched');
    await client.close();
  });

  it('gives anonymous and unclaimed callers the claim instructions, and a read-only token insufficient_scope', async () => {
    for (const token of [undefined, await unclaimedToken(w.app)]) {
      const client = await mcp(token);
      const out = await call(client, { action: 'list' });
      await client.close();
      expect(out.isError).toBe(true);
      expect(text(out)).toContain('POST /api/oauth/claim');
      expect(text(out)).toContain('"alerts"');
    }
    const client = await mcp(alerts.readToken);
    const out = await call(client, { action: 'session', sessionId: FULL });
    await client.close();
    expect(out.isError).toBe(true);
    expect(text(out)).toContain('insufficient_scope (scope "alerts")');
    expect(text(out)).toContain('This token lacks the "alerts" scope');
  });
});

describe('/api/watches (REST)', () => {
  it('creates, lists and removes this claim’s alerts; another’s id is 404', async () => {
    const made = await rest('POST', '/api/watches', alerts.token, { search: { dept: '69' } });
    expect(made.statusCode, made.body).toBe(200);
    expect(made.json()).toMatchObject({ sessionId: null, search: { dept: '69' }, confirmed: true });
    const list = await rest('GET', '/api/watches', alerts.token);
    expect(list.statusCode).toBe(200);
    expect(list.json().watches.map((x: { id: string }) => x.id)).toContain(made.json().id);

    const theirs = (await rest('GET', '/api/watches', other.token)).json().watches[0].id;
    expect((await rest('DELETE', `/api/watches/${theirs}`, alerts.token)).statusCode).toBe(404);
    const removed = await rest('DELETE', `/api/watches/${made.json().id}`, alerts.token);
    expect(removed.statusCode).toBe(204);
    expect((await rest('DELETE', `/api/watches/${made.json().id}`, alerts.token)).statusCode).toBe(404);
  });

  it('answers 400, 404 and 409 as problem+json', async () => {
    const bad = await rest('POST', '/api/watches', alerts.token, { search: { city: 'Lyon', radiusKm: 10 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect(bad.body).toContain('radiusKm');
    const open = await rest('POST', '/api/watches', alerts.token, { sessionId: OPEN });
    expect(open.statusCode).toBe(409);
    expect(open.json().code).toBe('not_full');
    expect((await rest('DELETE', '/api/watches/pas-un-id', alerts.token)).statusCode).toBe(400);
  });

  it('403 with the claim instructions without a claim; insufficient_scope for a read-only token', async () => {
    for (const token of [undefined, await unclaimedToken(w.app)]) {
      const res = await rest('GET', '/api/watches', token);
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().detail).toContain('POST /api/oauth/claim');
    }
    const res = await rest('POST', '/api/watches', alerts.readToken, { sessionId: FULL });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('insufficient_scope');
    expect(res.headers['www-authenticate']).toContain('error="insufficient_scope"');
    expect(res.headers['www-authenticate']).toContain('scope="read alerts"');
  });

  it('never gave an agent the person’s email', () => {
    expect(agentAnswers.length).toBeGreaterThan(20);
    for (const answer of agentAnswers) {
      expect(answer).not.toContain(PERSON);
      expect(answer).not.toContain(OTHER);
    }
  });
});
