import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentPerson, InsufficientScopeError, requireScope } from '../../src/agent-claims/agent-person.js';
import { pruneClaims } from '../../src/agent-claims/prune-claims.js';
import { buildApp } from '../../src/app.js';
import { agentClaims } from '../../src/db/schema.js';
import { Browser, followLink, linkPath, signIn } from '../helpers/accounts.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * The claim (issue 26): a registered agent client asks a person's consent to act for them; the
 * person signs in through the emailed link, types the agent's code and approves or refuses; the
 * client's next tokens carry the person (pairwise sub, never the email) and the granted scopes,
 * until the person withdraws it in /mon-espace, which every instance sees at the next request.
 */

const PERSON = 'claire.martin@example.org';
const clock = frozenClock('2026-03-02T09:00:00Z');
// oauth4webapi insists on https unless told that this loopback server is fine.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

let db: TestDatabase;
let smtp: TestSmtpServer;
let app: FastifyInstance;
let second: FastifyInstance;
let base: string;
let as: oauth.AuthorizationServer;
// Every answer the service gave an agent (claim, poll, token), to check none carries the email.
const agentAnswers: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  smtp = await startSmtpServer();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { PUBLIC_BASE_URL: base, SMTP_URL: smtp.url, MAIL_FROM: 'Stages <connexion@stages.example.test>' };
  app = await buildApp(testConfig(env), { database: db.database, logger: false, clock });
  await app.listen({ port, host: '127.0.0.1' });
  // A second instance on the same database, as behind a load balancer.
  second = await buildApp(testConfig(env), { database: db.database, logger: false, clock });
  await second.ready();
  const issuer = new URL(base);
  as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
});
afterAll(async () => {
  await second.close();
  await app.close();
  await smtp.close();
  await db.dispose();
});

interface Agent {
  client: oauth.Client;
  auth: oauth.ClientAuth;
}

async function registerAgent(name: string): Promise<Agent> {
  const registered = await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { client_name: name }, insecure),
  );
  // Spec.md §4.4 unchanged: client_credentials only.
  expect(registered.grant_types).toEqual(['client_credentials']);
  return {
    client: { client_id: registered.client_id },
    auth: oauth.ClientSecretBasic(registered.client_secret as string),
  };
}

/** A token through oauth4webapi; `scope` undefined sends none. */
async function token(agent: Agent, scope?: string) {
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    agent.client,
    agent.auth,
    scope === undefined ? {} : { scope },
    insecure,
  );
  agentAnswers.push(await response.clone().text());
  return oauth.processClientCredentialsResponse(as, agent.client, response);
}

/** The error a refused token request gives. */
async function tokenError(agent: Agent, scope: string): Promise<{ error: string; error_description: string }> {
  const err = await token(agent, scope).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  const { cause } = err as oauth.ResponseBodyError;
  return cause as { error: string; error_description: string };
}

async function agentFetch(path: string, accessToken: string | undefined, init: RequestInit = {}) {
  const res = await fetch(new URL(path, base), {
    ...init,
    headers: { ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}), ...(init.headers ?? {}) },
  });
  const text = await res.text();
  agentAnswers.push(text);
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const startClaim = (accessToken: string, scope?: string) =>
  agentFetch('/api/oauth/claim', accessToken, {
    method: 'POST',
    ...(scope === undefined
      ? {}
      : { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ scope }) }),
  });

/** Polls after the interval has passed (the clock moves, no real wait). */
async function poll(claimId: string, accessToken: string, via: 'app' | 'second' = 'app') {
  clock.set(new Date(clock.now().getTime() + 5_000).toISOString());
  if (via === 'app') return agentFetch(`/api/oauth/claim/${claimId}`, accessToken);
  const res = await second.inject({
    url: `/api/oauth/claim/${claimId}`,
    headers: { authorization: `Bearer ${accessToken}` },
  });
  agentAnswers.push(res.body);
  return { status: res.statusCode, headers: new Headers(res.headers as Record<string, string>), body: res.json() };
}

/** The path of a claim's page, from its claim_url. */
const pagePath = (claimUrl: string) => {
  const url = new URL(claimUrl);
  return `${url.pathname}${url.search}`;
};

/** The person opens the claim's page, asks for a sign-in link, follows the emailed one and lands back on the page. */
async function signInFromClaimPage(claimUrl: string, email = PERSON): Promise<Browser> {
  const browser = new Browser(app);
  const first = await browser.get(pagePath(claimUrl));
  expect(first.statusCode).toBe(200);
  expect(first.body).toContain('Me connecter pour répondre');
  const signInHref = /href="(\/connexion\?suite=[^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
  expect(signInHref).toBeDefined();
  const signInPage = await browser.get(signInHref as string);
  const sent = await browser.post('/connexion', {
    _csrf: Browser.token(signInPage.body),
    suite: Browser.field(signInPage.body, 'suite'),
    email,
  });
  expect(sent.statusCode).toBe(200);
  const before = smtp.received.length;
  await app.jobs.drain();
  await expect.poll(() => smtp.received.length).toBeGreaterThan(before);
  const mail = smtp.received.at(-1);
  expect(mail?.to).toContain(email);
  const link = /https?:\/\/\S+\/connexion\/lien\/\S+/.exec(mail?.text ?? '')?.[0] as string;
  expect(link).toContain('suite=');
  const landed = await followLink(browser, `${linkPath(link)}${new URL(link).search}`);
  expect(landed.statusCode).toBe(303);
  expect(landed.headers.location).toBe(pagePath(claimUrl));
  return browser;
}

/** Posts the claim page's form as the person. */
async function answer(browser: Browser, claimUrl: string, fields: Record<string, string | string[]>) {
  const page = await browser.get(pagePath(claimUrl));
  const claim = new URL(claimUrl).searchParams.get('claim') as string;
  // A page with nothing left to answer has no form: the form cookie's value is its token.
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? (browser.cookies.get('srp-form') as string);
  return browser.post('/agents/autoriser', { _csrf: csrf, claim, ...fields });
}

describe('an agent claimed by a person, from registration to revocation', () => {
  let agent: Agent;
  let claim: { claim_id: string; claim_url: string; user_code: string };
  let alertsToken = '';
  let sub = '';

  it('keeps spec.md §4.5 for a client nobody claimed: no scope gives exactly "read", alerts needs a claim', async () => {
    agent = await registerAgent('Assistant de test');
    const plain = await token(agent);
    expect(plain.scope).toBe('read');
    const claims = decodeJwt(plain.access_token);
    expect(claims.sub).toBe(agent.client.client_id);
    expect(claims.claim).toBeUndefined();
    const refused = await tokenError(agent, 'read alerts');
    expect(refused.error).toBe('invalid_scope');
    expect(refused.error_description).toContain('/api/oauth/claim');
    expect((await tokenError(agent, 'read admin')).error).toBe('invalid_scope');
  });

  it('starts a claim with the client’s token: claim_url, a code to read aloud, 10 minutes, an interval', async () => {
    const { access_token } = await token(agent);
    const res = await startClaim(access_token, 'alerts');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toMatchObject({ expires_in: 600, interval: 5, scope: 'read alerts' });
    expect(res.body.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    expect(res.body.claim_url).toBe(`${base}/agents/autoriser?claim=${res.body.claim_id}`);
    claim = res.body;
    // Still only "read" while the person has not answered.
    expect((await tokenError(agent, 'read alerts')).error).toBe('invalid_scope');
    expect((await poll(claim.claim_id, access_token)).body).toEqual({ claim_id: claim.claim_id, status: 'pending' });
    // Polling again at once: slow down (RFC 8628 §3.5).
    const fast = await agentFetch(`/api/oauth/claim/${claim.claim_id}`, access_token);
    expect(fast.status).toBe(400);
    expect(fast.body.error).toBe('slow_down');
  });

  it('lets the person sign in from the claim page by email and come back, then refuses a wrong code', async () => {
    const browser = await signInFromClaimPage(claim.claim_url);
    const page = await browser.get(pagePath(claim.claim_url));
    expect(page.body).toContain('« Assistant de test »');
    expect(page.body).toContain('il n’est pas vérifié');
    expect(page.body).toContain('Créer des alertes pour vous');
    // Holding a place is not offered yet (issue 26: alerts only this time).
    expect(page.body).not.toContain('Mettre une place de côté pour vous');
    expect(page.body).toContain('payer quoi que ce soit');
    expect(page.body).toContain('réserver un stage à votre place');
    const wrong = await answer(browser, claim.claim_url, {
      user_code: 'BBBB-BBBB',
      scope: 'alerts',
      decision: 'approve',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.body).toContain('Ce code ne correspond pas');
    expect(wrong.body).toContain('il vous reste 4 essais');
    const { access_token } = await token(agent);
    expect((await poll(claim.claim_id, access_token)).body.status).toBe('pending');

    // The right code, typed in lower case with a space: approved.
    const typed = claim.user_code.toLowerCase().replace('-', ' ');
    const ok = await answer(browser, claim.claim_url, { user_code: typed, scope: 'alerts', decision: 'approve' });
    expect(ok.statusCode).toBe(303);
    const after = await browser.get(ok.headers.location as string);
    expect(after.body).toContain('C’est fait');
    // The address says nothing done to anyone else who opens it.
    const stranger = await new Browser(app).get(ok.headers.location as string);
    expect(stranger.body).not.toContain('C’est fait');
    expect(stranger.body).toContain('déjà reçu une réponse');
    // Sent again (a double tap): nothing more happens.
    const again = await answer(browser, claim.claim_url, { user_code: typed, scope: 'alerts', decision: 'approve' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('déjà reçu une réponse');
  });

  it('tells the polling client, and issues alerts only when asked, with the person as a pairwise sub', async () => {
    const plain = await token(agent);
    expect(plain.scope).toBe('read'); // no scope asked: exactly "read", claimed or not
    const polled = await poll(claim.claim_id, plain.access_token);
    expect(polled.body).toEqual({ claim_id: claim.claim_id, status: 'approved', scope: 'read alerts' });
    const granted = await token(agent, 'read alerts');
    expect(granted.scope).toBe('read alerts');
    const claims = decodeJwt(granted.access_token);
    expect(claims.sub).toMatch(/^psn_/);
    expect(claims.claim).toBe(claim.claim_id);
    expect(claims.client_id).toBe(agent.client.client_id);
    expect(JSON.stringify(claims)).not.toContain('claire');
    alertsToken = granted.access_token;
    sub = claims.sub as string;
    // Offered, but not granted by this person: hold.
    const hold = await tokenError(agent, 'read alerts hold');
    expect(hold.error).toBe('invalid_scope');
    expect(hold.error_description).toContain('did not grant hold');
    // One person per client.
    const another = await startClaim(plain.access_token);
    expect(another.status).toBe(409);

    // What the next doors (holds, agent alerts) ask of a request's identity.
    const verified = await app.accessTokens.verify(alertsToken);
    const identity = { kind: 'client' as const, ...verified };
    expect(await agentPerson(app.database.db, identity)).toMatchObject({
      subject: sub,
      email: PERSON,
      scopes: ['alerts'],
    });
    expect(() => requireScope(identity, 'alerts')).not.toThrow();
    const readOnly = { kind: 'client' as const, ...(await app.accessTokens.verify(plain.access_token)) };
    expect((await agentPerson(app.database.db, readOnly))?.scopes).toEqual([]);
    expect(() => requireScope(readOnly, 'alerts')).toThrow(InsufficientScopeError);
    expect(() => requireScope(readOnly, 'alerts')).toThrow(/scope="read alerts"/);
    const unclaimed = { kind: 'client' as const, clientId: 'cl_x', scope: 'read' as const, scopes: ['read'] };
    expect(await agentPerson(app.database.db, unclaimed)).toBeUndefined();
    expect(() => requireScope(unclaimed, 'alerts')).toThrow(/POST \/api\/oauth\/claim/);
  });

  it('keeps the rate tier keyed by client_id for a claimed token', async () => {
    const limited = await buildApp(testConfig({ PUBLIC_BASE_URL: base, RATE_LIMIT: 'on' }), {
      database: db.database,
      logger: false,
      clock,
    });
    try {
      const ping = (authorization?: string) =>
        limited.inject({
          method: 'POST',
          url: '/api/mcp',
          headers: {
            ...(authorization ? { authorization } : {}),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
        });
      const claimed = await ping(`Bearer ${alertsToken}`);
      expect(claimed.statusCode).toBe(200);
      expect(Number(claimed.headers['ratelimit-limit'])).toBe(limited.config.rateLimit.authenticated);
      const anonymous = await ping();
      expect(Number(anonymous.headers['ratelimit-limit'])).toBe(limited.config.rateLimit.anonymous);
      expect(limited.config.rateLimit.authenticated).not.toBe(limited.config.rateLimit.anonymous);
      // Counted for the client: another token of the same client spends the same budget.
      const plain = await ping(`Bearer ${(await token(agent)).access_token}`);
      expect(Number(plain.headers['ratelimit-remaining'])).toBe(Number(claimed.headers['ratelimit-remaining']) - 1);
    } finally {
      await limited.close();
    }
  });

  it('lists the agent in /mon-espace and withdraws it there: the old token is refused on another instance', async () => {
    // The token works on the second instance before the withdrawal.
    expect((await poll(claim.claim_id, alertsToken, 'second')).status).toBe(200);
    const browser = await signIn(app, PERSON);
    const area = await browser.get('/mon-espace');
    expect(area.body).toContain('href="/mon-espace/agents"');
    const list = await browser.get('/mon-espace/agents');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('« Assistant de test »');
    expect(list.body).toContain('créer des alertes');
    expect(list.body).toContain('2 mars 2026');
    const action = /action="(\/mon-espace\/agents\/[^"]+\/retrait)"/.exec(list.body)?.[1] as string;
    const revoked = await browser.post(action, { _csrf: Browser.token(list.body) });
    expect(revoked.statusCode).toBe(303);
    expect((await browser.get(revoked.headers.location as string)).body).toContain('Autorisation retirée');
    expect((await browser.get('/mon-espace/agents')).body).toContain('Vous n’avez autorisé aucun assistant');

    // The next request with the old token, on the other instance: refused with a challenge.
    const refused = await poll(claim.claim_id, alertsToken, 'second');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_token');
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const mcp = await second.inject({
      method: 'POST',
      url: '/api/mcp',
      headers: {
        authorization: `Bearer ${alertsToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(mcp.statusCode).toBe(401);
    // The client is a plain client again: read, and alerts refused.
    const plain = await token(agent);
    expect(decodeJwt(plain.access_token).sub).toBe(agent.client.client_id);
    expect((await tokenError(agent, 'read alerts')).error).toBe('invalid_scope');
    expect((await poll(claim.claim_id, plain.access_token)).body.status).toBe('revoked');

    // Claimed again by the same person: the same pairwise sub; by another client: another one.
    const again = (await startClaim(plain.access_token, 'alerts')).body;
    const person = await signInFromClaimPage(again.claim_url);
    expect(
      (
        await answer(person, again.claim_url, {
          user_code: again.user_code,
          scope: 'alerts',
          decision: 'approve',
        })
      ).statusCode,
    ).toBe(303);
    expect(decodeJwt((await token(agent, 'read alerts')).access_token).sub).toBe(sub);
    const other = await registerAgent('Autre assistant');
    const otherClaim = (await startClaim((await token(other)).access_token, 'alerts')).body;
    expect(
      (
        await answer(person, otherClaim.claim_url, {
          user_code: otherClaim.user_code,
          scope: 'alerts',
          decision: 'approve',
        })
      ).statusCode,
    ).toBe(303);
    const otherSub = decodeJwt((await token(other, 'read alerts')).access_token).sub;
    expect(otherSub).toMatch(/^psn_/);
    expect(otherSub).not.toBe(sub);
  });
});

describe('a claim refused, expired or guessed at', () => {
  it('refused by the person: the client learns "denied" and gets no alerts', async () => {
    const agent = await registerAgent('Assistant refusé');
    const { access_token } = await token(agent);
    const claim = (await startClaim(access_token)).body;
    expect(claim.scope).toBe('read hold alerts'); // no scope asked: every scope offered
    const browser = await signInFromClaimPage(claim.claim_url);
    const page = await browser.get(pagePath(claim.claim_url));
    expect(page.body).toContain('Créer des alertes pour vous');
    const refused = await answer(browser, claim.claim_url, { decision: 'deny' });
    expect(refused.statusCode).toBe(303);
    expect((await browser.get(refused.headers.location as string)).body).toContain('vous avez refusé');
    expect((await poll(claim.claim_id, access_token)).body).toEqual({ claim_id: claim.claim_id, status: 'denied' });
    expect((await tokenError(agent, 'read alerts')).error).toBe('invalid_scope');
  });

  it('expires after 10 minutes: the client learns "expired" and the page can no longer approve it', async () => {
    const agent = await registerAgent('Assistant lent');
    const { access_token } = await token(agent);
    const claim = (await startClaim(access_token, 'alerts')).body;
    const browser = await signInFromClaimPage(claim.claim_url);
    clock.set(new Date(clock.now().getTime() + 600_000).toISOString());
    const late = await answer(browser, claim.claim_url, {
      user_code: claim.user_code,
      scope: 'alerts',
      decision: 'approve',
    });
    expect(late.statusCode).toBe(409);
    expect(late.body).toContain('Cette demande a expiré');
    const fresh = await token(agent);
    expect((await poll(claim.claim_id, fresh.access_token)).body.status).toBe('expired');
    expect((await tokenError(agent, 'read alerts')).error).toBe('invalid_scope');
  });

  it('refuses the claim for good after five wrong codes', async () => {
    const agent = await registerAgent('Assistant deviné');
    const { access_token } = await token(agent);
    const claim = (await startClaim(access_token, 'alerts')).body;
    const browser = await signInFromClaimPage(claim.claim_url);
    for (let i = 0; i < 4; i++)
      expect(
        (await answer(browser, claim.claim_url, { user_code: 'ZZZZ-ZZZZ', scope: 'alerts', decision: 'approve' }))
          .statusCode,
      ).toBe(400);
    const last = await answer(browser, claim.claim_url, {
      user_code: 'ZZZZ-ZZZZ',
      scope: 'alerts',
      decision: 'approve',
    });
    expect(last.body).toContain('Trop de codes erronés');
    // Even the right code is too late now.
    const right = await answer(browser, claim.claim_url, {
      user_code: claim.user_code,
      scope: 'alerts',
      decision: 'approve',
    });
    expect(right.statusCode).toBe(409);
    expect((await poll(claim.claim_id, access_token)).body.status).toBe('denied');
  });

  it('asks for the code and for a scope before approving', async () => {
    const agent = await registerAgent('Assistant pressé');
    const claim = (await startClaim((await token(agent)).access_token, 'alerts')).body;
    const browser = await signInFromClaimPage(claim.claim_url);
    const noCode = await answer(browser, claim.claim_url, { user_code: '', scope: 'alerts', decision: 'approve' });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.body).toContain('Indiquez le code de 8 lettres');
    const noScope = await answer(browser, claim.claim_url, { user_code: claim.user_code, decision: 'approve' });
    expect(noScope.statusCode).toBe(400);
    expect(noScope.body).toContain('Cochez au moins une chose');
    // A scope not asked for is not granted.
    const holdOnly = await answer(browser, claim.claim_url, {
      user_code: claim.user_code,
      scope: 'hold',
      decision: 'approve',
    });
    expect(holdOnly.statusCode).toBe(400);
  });
});

describe('the claim endpoints’ errors, in the OAuth format', () => {
  it('answers a request without a token 400 invalid_request (never 401), a bad token 401 with a challenge', async () => {
    const none = await agentFetch('/api/oauth/claim', undefined, { method: 'POST' });
    expect(none.status).toBe(400);
    expect(none.body.error).toBe('invalid_request');
    expect(none.body.error_description).toContain('/api/oauth/register');
    expect(none.headers.get('www-authenticate')).toBeNull();
    const bad = await agentFetch('/api/oauth/claim', 'not.a.token', { method: 'POST' });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_token');
    expect(bad.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('refuses unknown scopes and another client’s claim id', async () => {
    const agent = await registerAgent('Assistant curieux');
    const { access_token } = await token(agent);
    const unknown = await startClaim(access_token, 'alerts pay');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_scope');
    // Holding a place is offered: asked with alerts, the claim asks the person for both.
    const mine = (await startClaim(access_token, 'alerts hold')).body;
    expect(mine.scope).toBe('read hold alerts');
    const other = await registerAgent('Assistant indiscret');
    const theirs = await poll(mine.claim_id, (await token(other)).access_token);
    expect(theirs.status).toBe(404);
    expect((await agentFetch('/api/oauth/claim', access_token, { method: 'DELETE' })).status).toBe(405);
    // A JSON body works as the form does.
    const json = await agentFetch('/api/oauth/claim', (await token(other)).access_token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scope: 'alerts' }),
    });
    expect(json.status).toBe(200);
    expect(json.body.scope).toBe('read alerts');
    // The person's page for a claim that does not exist.
    const missing = await new Browser(app).get('/agents/autoriser?claim=AAAAAAAAAAAAAAAAAAAAAA');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('Demande introuvable');
  });

  it('never returns the person’s email to an agent', () => {
    expect(agentAnswers.length).toBeGreaterThan(20);
    for (const body of agentAnswers) expect(body).not.toContain('example.org');
  });
});

describe('the metadata and the sign-in return path', () => {
  it('describes the claim in agent_auth; scopes_supported gains hold and alerts, the resource metadata stays read', async () => {
    expect(as.scopes_supported).toEqual(['read', 'hold', 'alerts']);
    const agentAuth = as.agent_auth as Record<string, unknown>;
    expect(agentAuth.claim_available).toBe(true);
    expect(agentAuth.identity_types_supported).toEqual(['anonymous']);
    expect(agentAuth.grant_type).toBe('client_credentials');
    expect(agentAuth.claim).toMatchObject({ endpoint: `${base}/api/oauth/claim`, expires_in_seconds: 600 });
    expect(Object.keys((agentAuth.claim as { scopes: object }).scopes)).toEqual(['hold', 'alerts']);
    // What claimed agents may now do, and what they never may.
    const claimText = agentAuth.claim as { what_claimed_agents_may_do: string; never: string[] };
    expect(claimText.what_claimed_agents_may_do).toContain('hold_place');
    expect(claimText.what_claimed_agents_may_do).toContain('completeUrl');
    expect(claimText.never).toEqual(expect.arrayContaining(['pay']));
    expect(claimText.never.join(' ')).toContain('book');
    expect(JSON.stringify(agentAuth)).not.toContain('not available yet');
    const prm = await agentFetch('/.well-known/oauth-protected-resource/api/mcp', undefined);
    expect(prm.body.scopes_supported).toEqual(['read']);
  });

  it('leads back only to this site’s own pages after sign-in', async () => {
    const browser = new Browser(app);
    const page = await browser.get('/connexion?suite=//evil.example/x');
    expect(page.body).not.toContain('name="suite"');
    const outside = await browser.get('/connexion?suite=https://evil.example/');
    expect(outside.body).not.toContain('evil.example');
  });
});

describe('claims that no longer do anything', () => {
  it('are forgotten a day after expiring unanswered or refused, a withdrawn one 30 days after', async () => {
    const agent = await registerAgent('Assistant oublié');
    const { access_token } = await token(agent);
    const left = (await startClaim(access_token, 'alerts')).body;
    const count = async (id: string) =>
      (await db.database.db.select().from(agentClaims).where(eq(agentClaims.id, id))).length;
    const started = clock.now().getTime();
    expect(await pruneClaims(db.database.db, new Date(started + 600_000 + 23 * 3_600_000))).toBe(0);
    expect(await count(left.claim_id)).toBe(1);
    await pruneClaims(db.database.db, new Date(started + 600_000 + 25 * 3_600_000));
    expect(await count(left.claim_id)).toBe(0);
    // Approved and in force: kept whatever the time.
    const kept = (await startClaim(access_token, 'alerts')).body;
    const person = await signInFromClaimPage(kept.claim_url);
    await answer(person, kept.claim_url, { user_code: kept.user_code, scope: 'alerts', decision: 'approve' });
    await pruneClaims(db.database.db, new Date(started + 400 * 86_400_000));
    expect(await count(kept.claim_id)).toBe(1);
    // Withdrawn: kept 30 days as the person's record, then forgotten.
    const list = await person.get('/mon-espace/agents');
    const action = `/mon-espace/agents/${kept.claim_id}/retrait`;
    expect(list.body).toContain(`action="${action}"`);
    expect((await person.post(action, { _csrf: Browser.token(list.body) })).statusCode).toBe(303);
    const revokedAt = clock.now().getTime();
    await pruneClaims(db.database.db, new Date(revokedAt + 29 * 86_400_000));
    expect(await count(kept.claim_id)).toBe(1);
    await pruneClaims(db.database.db, new Date(revokedAt + 31 * 86_400_000));
    expect(await count(kept.claim_id)).toBe(0);
  });
});
