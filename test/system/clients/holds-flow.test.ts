import * as v2 from '@modelcontextprotocol/client';
import * as v1Auth from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider as V1ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../helpers/browser.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW, SESSIONS } from '../../helpers/fixtures.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

/*
 * Issue 26's whole flow as an agent developer meets it, from nothing but the base URL, with the
 * official MCP SDKs 1.x and 2.x: register (client_credentials), start a claim asking "hold
 * alerts", the person signs in through the emailed link and approves in Chromium, the agent polls,
 * gets a token with "hold", holds a place (hold_place), and the person books it on completeUrl in
 * Chromium. A second instance on the same PostgreSQL database shows the place taken and the hold
 * completed; a second hold is left to expire on the service's clock and gives its place back.
 * Nothing the agent receives carries the person's email, name or phone.
 */

const TTL_SECONDS = 60;

let smtp: TestSmtpServer;
let first: ListeningApp;
let second: ListeningApp;
let browser: Browser;

// Every answer an agent received: OAuth, the claim, REST, tool results, and its tokens' claims.
const agentSaw: string[] = [];

/** The agent's fetch: keeps every answer's body but event streams (whose tool results are kept by `call`). */
const agentFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await fetch(input, init);
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const body = await res.clone().text();
    agentSaw.push(body);
    const token = /"access_token":"[^".]+\.([^".]+)\./.exec(body)?.[1];
    if (token) agentSaw.push(Buffer.from(token, 'base64url').toString('utf8'));
  }
  return res;
};

/** A tool result the agent received, kept with the rest. */
function kept(answer: ToolAnswer): ToolAnswer {
  agentSaw.push(JSON.stringify(answer));
  return answer;
}

type ToolAnswer = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: { hold?: Hold };
};
interface Hold {
  holdId: string;
  sessionId: string;
  state: string;
  expiresAt: string;
  completeUrl: string;
  createdAt: string;
}
interface Credentials {
  client_id: string;
  client_secret: string;
}
interface AgentSession {
  token(): string | undefined;
  call(name: string, args: Record<string, unknown>): Promise<ToolAnswer>;
  close(): Promise<void>;
}

interface Sdk {
  name: string;
  /** Discovery from the MCP endpoint and dynamic registration, with the SDK's own code. */
  register(mcpUrl: URL): Promise<Credentials>;
  /** A session of the SDK's client authorised by its ClientCredentialsProvider asking `scope` (none: read). */
  connect(mcpUrl: URL, credentials: Credentials, scope?: string): Promise<AgentSession>;
}

const clientMetadata = {
  client_name: 'Assistant permis (SDK)',
  redirect_uris: [],
  grant_types: ['client_credentials'],
  token_endpoint_auth_method: 'client_secret_basic',
};

const sdk1: Sdk = {
  name: '@modelcontextprotocol/sdk 1.x',
  async register(mcpUrl) {
    const info = await v1Auth.discoverOAuthServerInfo(mcpUrl, { fetchFn: agentFetch });
    const client = await v1Auth.registerClient(info.authorizationServerUrl, {
      metadata: info.authorizationServerMetadata,
      clientMetadata,
      fetchFn: agentFetch,
    });
    return { client_id: client.client_id, client_secret: client.client_secret as string };
  },
  async connect(mcpUrl, credentials, scope) {
    const provider = new V1ClientCredentialsProvider({
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      expectedIssuer: first.base,
      ...(scope ? { scope } : {}),
    });
    expect(await v1Auth.auth(provider, { serverUrl: mcpUrl, scope, fetchFn: agentFetch })).toBe('AUTHORIZED');
    const client = new V1Client({ name: 'sdk1-holds', version: '1.0.0' });
    await client.connect(new V1Transport(mcpUrl, { authProvider: provider, fetch: agentFetch }));
    return {
      token: () => provider.tokens()?.access_token,
      call: async (name, args) => kept((await client.callTool({ name, arguments: args })) as ToolAnswer),
      close: () => client.close(),
    };
  },
};

const sdk2: Sdk = {
  name: '@modelcontextprotocol/client 2.x',
  async register(mcpUrl) {
    const info = await v2.discoverOAuthServerInfo(mcpUrl, { fetchFn: agentFetch });
    const client = await v2.registerClient(info.authorizationServerUrl, {
      metadata: info.authorizationServerMetadata,
      clientMetadata,
      fetchFn: agentFetch,
    });
    return { client_id: client.client_id, client_secret: client.client_secret as string };
  },
  async connect(mcpUrl, credentials, scope) {
    const provider = new v2.ClientCredentialsProvider({
      clientId: credentials.client_id,
      clientSecret: credentials.client_secret,
      expectedIssuer: first.base,
      ...(scope ? { scope } : {}),
    });
    expect(await v2.auth(provider, { serverUrl: mcpUrl, scope, fetchFn: agentFetch })).toBe('AUTHORIZED');
    const client = new v2.Client({ name: 'sdk2-holds', version: '1.0.0' });
    await client.connect(new v2.StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: agentFetch }));
    return {
      token: () => provider.tokens()?.access_token,
      call: async (name, args) => kept((await client.callTool({ name, arguments: args })) as ToolAnswer),
      close: () => client.close(),
    };
  },
};

/** A person the agent acts for, and what they type on the site (none of it may reach the agent). */
interface Person {
  email: string;
  firstName: string;
  lastName: string;
  phone: string;
}

const CASES = [
  {
    sdk: sdk1,
    person: {
      email: 'leonie.vasseur@example.org',
      firstName: 'Léonie',
      lastName: 'Vasseur-Blanc',
      phone: '06 11 22 33 44',
    },
    booked: SESSIONS.stEtienneMar5,
    expiring: SESSIONS.bourgMar14,
  },
  {
    sdk: sdk2,
    person: {
      email: 'gaetan.rouviere@example.org',
      firstName: 'Gaëtan',
      lastName: 'Rouvière',
      phone: '07 55 66 77 88',
    },
    booked: SESSIONS.ajaccioMar13,
    expiring: SESSIONS.reunionMar19,
  },
];

beforeAll(async () => {
  smtp = await startSmtpServer();
  const env = { SMTP_URL: smtp.url, HOLD_TTL_SECONDS: String(TTL_SECONDS) };
  first = await listeningApp(FIXTURE_NOW, env, { catalogue: FIXTURE_CATALOGUE });
  // Behind the same address, as behind a load balancer without sticky sessions.
  second = await listeningApp(FIXTURE_NOW, env, { besides: first });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await second?.close();
  await first?.close();
  await smtp?.close();
});

/** Moves the service's clock (both instances share it) by `seconds`. */
function advance(seconds: number): void {
  first.clock.set(new Date(first.clock.now().getTime() + seconds * 1000).toISOString());
}

/** A request of the agent's, with its token, to one instance (by default the base URL). */
async function agentJson(path: string, token: string | undefined, init: RequestInit = {}, origin = first.base) {
  const res = await agentFetch(`${origin}${path}`, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Places on sale as an instance answers anyone (anonymous, over HTTP). */
async function placesOn(instance: ListeningApp, sessionId: string): Promise<number> {
  const res = await fetch(`${instance.address}/api/stages/${sessionId}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { spotsAvailable: number }).spotsAvailable;
}

/** Both instances' places, once the other instance has heard of the change (a NOTIFY away). */
async function expectPlaces(sessionId: string, expected: number): Promise<void> {
  for (const instance of [first, second])
    await expect.poll(() => placesOn(instance, sessionId), { timeout: 10_000 }).toBe(expected);
}

/** The emailed sign-in link sent to `email`, once the outbox has sent it. */
async function signInLink(email: string): Promise<string> {
  const link = () =>
    smtp.received
      .filter((m) => m.to.includes(email))
      .map((m) => /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/\S+/.exec(m.text)?.[0])
      .find(Boolean);
  await first.app.jobs.drain();
  await expect.poll(link).toBeDefined();
  return link() as string;
}

/** The person, on a phone with JavaScript off, answers the claim: signs in by the emailed link, types the code, approves. */
async function personApproves(page: Page, person: Person, claim: { claim_url: string; user_code: string }) {
  await page.goto(claim.claim_url);
  await page.getByRole('link', { name: 'Me connecter pour répondre' }).click();
  await page.getByLabel('Adresse e-mail').fill(person.email);
  await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
  await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);
  await page.goto(await signInLink(person.email));
  await Promise.all([
    page.waitForURL('**/agents/autoriser?claim=*'),
    page.getByRole('button', { name: 'Me connecter' }).click(),
  ]);
  // The client's name is shown as given by the client, and what it may do.
  expect(await page.getByText(/Assistant permis \(SDK\)/).count()).toBeGreaterThan(0);
  await page.getByLabel('Le code que l’assistant vous a donné').fill(claim.user_code);
  await expect.poll(() => page.getByLabel(/^Mettre une place de côté/).isChecked()).toBe(true);
  await Promise.all([page.waitForURL('**reponse=autorise'), page.getByRole('button', { name: 'Autoriser' }).click()]);
}

/** The person books the held place on completeUrl: the form, their details, the private page. */
async function personBooks(page: Page, person: Person, hold: Hold): Promise<string> {
  await page.goto(hold.completeUrl);
  expect(await page.getByText('Une place de ce stage est mise de côté pour vous jusqu’à').count()).toBe(1);
  await page.getByLabel('Prénom').fill(person.firstName);
  await page.getByLabel('Nom', { exact: true }).fill(person.lastName);
  await page.getByLabel(/Adresse e-mail/).fill(person.email);
  await page.getByLabel(/Téléphone mobile/).fill(person.phone);
  await page.getByLabel('Permis probatoire', { exact: false }).check();
  await page.getByLabel(/J’ai pris connaissance des conditions du centre/).check();
  await Promise.all([
    page.waitForURL(/\/reservations\/[A-Za-z0-9_-]{22}#reservation$/),
    page.getByRole('button', { name: 'Réserver ma place' }).click(),
  ]);
  await expect.poll(() => page.getByRole('heading', { name: 'Votre réservation' }).count()).toBe(1);
  const main = (await page.locator('main').textContent()) ?? '';
  expect(main).toContain(person.firstName);
  return page.url();
}

describe.each(CASES)('$sdk.name: claim, hold, book in Chromium, expire', ({ sdk, person, booked, expiring }) => {
  let credentials: Credentials;
  let claim: { claim_id: string; claim_url: string; user_code: string; interval: number };
  let plainToken: string;
  let agent: AgentSession;
  let page: Page;

  beforeAll(async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      locale: 'fr-FR',
      javaScriptEnabled: false,
      isMobile: true,
      hasTouch: true,
    });
    page = await context.newPage();
  });
  afterAll(async () => {
    await agent?.close();
    await page?.context().close();
  });

  it('registers with the SDK, starts a claim asking "hold alerts", and learns it is pending', async () => {
    credentials = await sdk.register(first.mcpUrl);
    const plain = await sdk.connect(first.mcpUrl, credentials);
    plainToken = plain.token() as string;
    // Before any claim: hold_place says how to get the person's consent.
    const refused = await plain.call('hold_place', { sessionId: booked.id });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toContain('POST /api/oauth/claim');
    await plain.close();

    const started = await agentJson('/api/oauth/claim', plainToken, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ scope: 'hold alerts' }),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({
      claim_url: expect.stringMatching(new RegExp(`^${first.base}/agents/autoriser\\?claim=`)),
      user_code: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/),
      expires_in: 600,
      scope: 'read hold alerts',
    });
    claim = started.body as typeof claim;
    const polled = await agentJson(`/api/oauth/claim/${claim.claim_id}`, plainToken);
    expect(polled).toEqual({ status: 200, body: { claim_id: claim.claim_id, status: 'pending' } });
  });

  it('the person signs in through the emailed link and approves in Chromium; the poll says approved', {
    timeout: 120_000,
  }, async () => {
    await personApproves(page, person, claim);
    advance(claim.interval);
    const polled = await agentJson(`/api/oauth/claim/${claim.claim_id}`, plainToken, {}, second.address);
    expect(polled).toEqual({
      status: 200,
      body: { claim_id: claim.claim_id, status: 'approved', scope: 'read hold alerts' },
    });
  });

  it('holds a place with hold_place; the person books it on completeUrl; both instances agree', {
    timeout: 120_000,
  }, async () => {
    agent = await sdk.connect(first.mcpUrl, credentials, 'read hold');
    const before = await placesOn(first, booked.id);
    const out = await agent.call('hold_place', { sessionId: booked.id, idempotencyKey: `stage-${booked.id}` });
    expect(out.isError, out.content[0]?.text).toBeFalsy();
    const hold = out.structuredContent?.hold as Hold;
    expect(hold).toEqual({
      holdId: expect.stringMatching(/^hld_[A-Za-z0-9_-]{22}$/),
      sessionId: booked.id,
      state: 'active',
      expiresAt: new Date(first.clock.now().getTime() + TTL_SECONDS * 1000).toISOString(),
      completeUrl: `${first.base}/stages/${booked.id}/reservation?hold=${hold.holdId}`,
      createdAt: first.clock.now().toISOString(),
    });
    // The same key again: the same hold, no second place.
    const again = await agent.call('hold_place', { sessionId: booked.id, idempotencyKey: `stage-${booked.id}` });
    expect(again.structuredContent?.hold).toEqual(hold);
    await expectPlaces(booked.id, before - 1);

    const privateUrl = await personBooks(page, person, hold);
    expect(privateUrl.startsWith(`${first.base}/reservations/`)).toBe(true);
    // The reservation took the held place: none more, on either instance.
    await expectPlaces(booked.id, before - 1);
    const read = await agentJson(`/api/holds/${hold.holdId}`, agent.token(), {}, second.address);
    expect(read).toEqual({ status: 200, body: { ...hold, state: 'completed' } });
    const released = await agent.call('release_hold', { holdId: hold.holdId });
    expect(released.isError).toBe(true);
    expect(released.content[0]?.text).toContain('hold_completed');
  });

  it('a second hold, left alone, gives its place back at expiresAt, whichever instance runs the job', async () => {
    const before = await placesOn(first, expiring.id);
    const out = await agent.call('hold_place', { sessionId: expiring.id, idempotencyKey: `attente-${expiring.id}` });
    expect(out.isError, out.content[0]?.text).toBeFalsy();
    const hold = out.structuredContent?.hold as Hold;
    await expectPlaces(expiring.id, before - 1);

    // A second before its time, nothing is due; at expiresAt the second instance's worker gives it back.
    advance(TTL_SECONDS - 1);
    await second.app.jobs.drain();
    await expectPlaces(expiring.id, before - 1);
    advance(1);
    await second.app.jobs.drain();
    await expectPlaces(expiring.id, before);
    const read = await agentJson(`/api/holds/${hold.holdId}`, agent.token());
    expect(read).toEqual({ status: 200, body: { ...hold, state: 'expired' } });
    // Its page now says so, and the place it held is on sale as any other.
    await page.goto(hold.completeUrl);
    expect(await page.getByText(/Le délai de la place mise de côté pour vous est passé/).count()).toBe(1);
  });

  it('its token expired, the SDK gets a new one by itself and may still hold and release', async () => {
    const before = agent.token();
    advance(2 * 3600);
    const out = await agent.call('hold_place', { sessionId: expiring.id });
    expect(out.isError, out.content[0]?.text).toBeFalsy();
    expect(agent.token()).not.toBe(before);
    const hold = out.structuredContent?.hold as Hold;
    const released = await agent.call('release_hold', { holdId: hold.holdId });
    expect(released.structuredContent?.hold?.state).toBe('released');
  });
});

describe('what the agents saw', () => {
  it('never carried the person’s email, name or phone', () => {
    expect(agentSaw.length).toBeGreaterThan(20);
    const seen = agentSaw.join('\n');
    for (const { person } of CASES)
      for (const secret of [
        person.email,
        person.firstName,
        person.lastName,
        person.phone,
        person.phone.replace(/ /g, ''),
        `+33${person.phone.replace(/ /g, '').slice(1)}`,
      ])
        expect(seen).not.toContain(secret);
  });
});
