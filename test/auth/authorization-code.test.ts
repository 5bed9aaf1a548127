import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Browser } from '../helpers/accounts.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { answerConsent, pathOf, signInAtConsent } from '../helpers/authorization-code.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { freePort } from '../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * The browser flow for agent hosts (issue 27): a public client registers with its loopback
 * redirect URI, sends the person to /api/oauth/authorize; the person signs in with the emailed
 * link, approves, and the client exchanges the code (PKCE) for tokens that act for the person
 * like a claimed client's; refresh tokens rotate, a replay revokes the grant, and withdrawing it
 * in /mon-espace/agents stops access and refresh at once on every instance. oauth4webapi plays
 * the client: it checks `state`, `iss` (RFC 9207) and the token answers strictly.
 */

const PERSON = 'lea.dupont@example.org';
const clock = frozenClock('2026-03-02T09:00:00Z');
const insecure = { [oauth.allowInsecureRequests]: true } as const;
// Registered without a port; asked with one (RFC 8252 §7.3).
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback';
const REDIRECT = 'http://127.0.0.1:49152/callback';

let db: TestDatabase;
let smtp: TestSmtpServer;
let app: FastifyInstance;
let second: FastifyInstance;
let base: string;
let as: oauth.AuthorizationServer;
// Every answer the service gave the client, to check none carries the person's email.
const clientAnswers: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  smtp = await startSmtpServer();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = { PUBLIC_BASE_URL: base, SMTP_URL: smtp.url, MAIL_FROM: 'Stages <connexion@stages.example.test>' };
  app = await buildApp(testConfig(env), { database: db.database, logger: false, clock });
  await app.listen({ port, host: '127.0.0.1' });
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

const record = async (response: Response) => {
  clientAnswers.push(await response.clone().text());
  return response;
};

async function registerHost(name = 'Hôte de test'): Promise<oauth.Client> {
  const response = await record(
    await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: name,
        redirect_uris: [REGISTERED_REDIRECT],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        scope: 'read alerts',
      },
      insecure,
    ),
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  expect(registered.client_secret).toBeUndefined();
  return { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
}

interface Started {
  url: string;
  verifier: string;
  state: string;
}

async function authorizationUrl(client: oauth.Client, extra: Record<string, string> = {}): Promise<Started> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope: 'read alerts',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource: `${base}/api/mcp`,
    ...extra,
  }).toString();
  return { url: url.href, verifier, state };
}

/** The whole browser part: authorize, sign in by email, approve; the callback URL the host receives. */
async function approve(client: oauth.Client, scopes?: string[], browser?: Browser) {
  const started = await authorizationUrl(client);
  const signedIn = await signInAtConsent(app, smtp, started.url, PERSON, browser);
  const consent = await signedIn.browser.get(signedIn.consentPath);
  expect(consent.body).toContain('Hôte de test');
  expect(consent.body).toContain('non vérifié');
  expect(consent.body).toContain('127.0.0.1:49152');
  const answered = await answerConsent(signedIn.browser, signedIn.consentPath, 'approve', scopes);
  expect(answered.statusCode, answered.body).toBe(303);
  return { ...started, browser: signedIn.browser, callback: new URL(answered.headers.location as string) };
}

async function exchange(client: oauth.Client, started: { verifier: string; state: string; callback: URL }) {
  const params = oauth.validateAuthResponse(as, client, started.callback, started.state);
  const response = await record(
    await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, started.verifier, insecure),
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

async function refresh(client: oauth.Client, refreshToken: string) {
  const response = await record(await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshToken, insecure));
  return oauth.processRefreshTokenResponse(as, client, response);
}

async function refusal(promise: Promise<unknown>): Promise<{ error: string; error_description: string }> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.ResponseBodyError);
  return (err as oauth.ResponseBodyError).cause as { error: string; error_description: string };
}

/** A raw token request (for what oauth4webapi refuses to send). */
async function tokenRequest(fields: Record<string, string>) {
  const res = await fetch(`${base}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return { status: res.status, body: (await res.json()) as { error?: string; error_description?: string } };
}

async function mcpWith(accessToken: string) {
  const client = new Client({ name: 'hote-de-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/api/mcp', base), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

const onSecond = (accessToken: string) =>
  second.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });

describe('an agent host acting for a person through the browser flow', () => {
  it('is advertised in the metadata, client_credentials first', () => {
    expect(as.response_types_supported).toEqual(['code']);
    expect(as.grant_types_supported).toEqual(['client_credentials', 'authorization_code', 'refresh_token']);
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    expect(as.authorization_response_iss_parameter_supported).toBe(true);
    expect(as.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('authorizes, acts for the person over MCP, rotates refresh tokens, and a replay revokes the grant', async () => {
    const client = await registerHost();
    const started = await approve(client);
    expect(started.callback.origin + started.callback.pathname).toBe(REDIRECT);
    expect(started.callback.searchParams.get('iss')).toBe(base);
    const tokens = await exchange(client, started);
    expect(tokens.scope).toBe('read alerts');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = decodeJwt(tokens.access_token);
    expect(claims.sub).toMatch(/^psn_/);
    expect(claims.client_id).toBe(client.client_id);
    expect(claims.aud).toBe(`${base}/api/mcp`);

    // Acting for the person: an alert for them, which only this grant sees.
    const mcp = await mcpWith(tokens.access_token);
    const made = await mcp.callTool({ name: 'watches', arguments: { action: 'search', dept: '69' } });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const listed = await mcp.callTool({ name: 'watches', arguments: { action: 'list' } });
    expect((listed.structuredContent as { watches: unknown[] }).watches).toHaveLength(1);
    clientAnswers.push(JSON.stringify(made), JSON.stringify(listed));
    await mcp.close();

    // Refresh: a new pair; the old refresh token is refused afterwards.
    const refreshed = await refresh(client, tokens.refresh_token as string);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.scope).toBe('read alerts');
    expect(decodeJwt(refreshed.access_token).sub).toBe(claims.sub);
    const replay = await refusal(refresh(client, tokens.refresh_token as string));
    expect(replay.error).toBe('invalid_grant');
    expect(replay.error_description).toContain('revoked');
    // The replay revoked the grant: the newest refresh token and its access token stop too.
    expect((await refusal(refresh(client, refreshed.refresh_token as string))).error).toBe('invalid_grant');
    const after = await onSecond(refreshed.access_token);
    expect(after.statusCode).toBe(401);
    expect(after.headers['www-authenticate']).toContain('invalid_token');
  });

  it('is listed in /mon-espace/agents, and withdrawing it stops access and refresh at once on another instance', async () => {
    const client = await registerHost();
    const started = await approve(client, []);
    const tokens = await exchange(client, started);
    expect(tokens.scope).toBe('read');
    expect((await onSecond(tokens.access_token)).statusCode).toBe(200);

    const list = await started.browser.get('/mon-espace/agents');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain('Hôte de test');
    const claimId = /action="\/mon-espace\/agents\/([A-Za-z0-9_-]{22})\/retrait"/.exec(list.body)?.[1] as string;
    const revoked = await started.browser.post(`/mon-espace/agents/${claimId}/retrait`, {
      _csrf: Browser.token(list.body),
    });
    expect(revoked.statusCode).toBe(303);

    const refused = await onSecond(tokens.access_token);
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('invalid_token');
    expect((await refusal(refresh(client, tokens.refresh_token as string))).error).toBe('invalid_grant');
  });

  it('gives the refusal back as access_denied, with state and iss', async () => {
    const client = await registerHost();
    const started = await authorizationUrl(client);
    const { browser, consentPath } = await signInAtConsent(app, smtp, started.url, PERSON);
    const answered = await answerConsent(browser, consentPath, 'deny');
    expect(answered.statusCode).toBe(303);
    const callback = new URL(answered.headers.location as string);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(started.state);
    expect(callback.searchParams.get('iss')).toBe(base);
    // oauth4webapi reads it as the refusal it is.
    expect(() => oauth.validateAuthResponse(as, client, callback, started.state)).toThrow(
      expect.objectContaining({ error: 'access_denied' }),
    );
    // Answered once: the page says so, and a second answer changes nothing.
    const page = await browser.get(consentPath);
    expect(page.body).toContain('déjà reçu une réponse');
    const again = await browser.post('/agents/connecter', {
      _csrf: browser.cookies.get('srp-form') as string,
      demande: new URLSearchParams(consentPath.split('?')[1]).get('demande') as string,
      decision: 'approve',
    });
    expect(again.statusCode).toBe(409);
    expect(again.headers.location).toBeUndefined();
  });

  it('gives a code once: reused, it is refused and the tokens it gave are revoked', async () => {
    const client = await registerHost();
    const started = await approve(client);
    const tokens = await exchange(client, started);
    const code = started.callback.searchParams.get('code') as string;
    const reused = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: REDIRECT,
      code_verifier: started.verifier,
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    expect((await onSecond(tokens.access_token)).statusCode).toBe(401);
    expect((await refusal(refresh(client, tokens.refresh_token as string))).error).toBe('invalid_grant');
  });

  it('checks the verifier, the client, the redirect URI and the code’s minute', async () => {
    const client = await registerHost();
    const other = await registerHost('Autre hôte');
    const started = await approve(client);
    const code = started.callback.searchParams.get('code') as string;
    const ask = (fields: Record<string, string>) =>
      tokenRequest({
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code,
        redirect_uri: REDIRECT,
        code_verifier: started.verifier,
        ...fields,
      });
    const wrongVerifier = await ask({ code_verifier: oauth.generateRandomCodeVerifier() });
    expect(wrongVerifier.status).toBe(400);
    expect(wrongVerifier.body.error).toBe('invalid_grant');
    expect(wrongVerifier.body.error_description).toContain('code_verifier');
    expect((await ask({ code_verifier: '' })).body.error).toBe('invalid_grant');
    expect((await ask({ client_id: other.client_id })).body.error).toBe('invalid_grant');
    expect((await ask({ redirect_uri: 'http://127.0.0.1:49153/callback' })).body.error).toBe('invalid_grant');
    // None of these spent it: the right request still works, within the minute.
    expect((await ask({})).status).toBe(200);

    const late = await approve(client);
    clock.set(new Date(clock.now().getTime() + 61_000).toISOString());
    try {
      const expired = await tokenRequest({
        grant_type: 'authorization_code',
        client_id: client.client_id,
        code: late.callback.searchParams.get('code') as string,
        redirect_uri: REDIRECT,
        code_verifier: late.verifier,
      });
      expect(expired.status).toBe(400);
      expect(expired.body.error).toBe('invalid_grant');
    } finally {
      clock.set(new Date(clock.now().getTime() - 61_000).toISOString());
    }
  });

  it('refuses a public client’s client_credentials, and a confidential client without its secret', async () => {
    const client = await registerHost();
    const asked = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id });
    expect(asked.status).toBe(400);
    expect(asked.body.error).toBe('unauthorized_client');
  });

  it('refuses an answer that does not carry the page’s anti-forgery token, and sends nothing', async () => {
    const client = await registerHost();
    const started = await authorizationUrl(client);
    const { browser, consentPath } = await signInAtConsent(app, smtp, started.url, PERSON);
    const demande = new URLSearchParams(consentPath.split('?')[1]).get('demande') as string;
    const forged = await browser.post(
      '/agents/connecter',
      { _csrf: 'forged-token', demande, decision: 'approve', scope: ['alerts'] },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(forged.statusCode).toBe(403);
    expect(forged.headers.location).toBeUndefined();
    // Still pending: the person's real answer works.
    const answered = await answerConsent(browser, consentPath, 'approve');
    expect(answered.statusCode).toBe(303);
    expect(new URL(answered.headers.location as string).searchParams.get('code')).toMatch(/\S/);
  });

  it('serves a confidential host too: its secret is required at the token endpoint', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'Hôte de test',
        redirect_uris: ['https://host.example/callback'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      insecure,
    );
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.client_secret).toEqual(expect.any(String));
    const client: oauth.Client = { client_id: registered.client_id };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://host.example/callback',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const { browser, consentPath } = await signInAtConsent(app, smtp, url.href, PERSON);
    const answered = await answerConsent(browser, consentPath, 'approve');
    const callback = new URL(answered.headers.location as string);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const code = params.get('code') as string;
    const withoutSecret = await tokenRequest({
      grant_type: 'authorization_code',
      client_id: client.client_id,
      code,
      redirect_uri: 'https://host.example/callback',
      code_verifier: verifier,
    });
    expect(withoutSecret.status).toBe(401);
    expect(withoutSecret.body.error).toBe('invalid_client');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await record(
        await oauth.authorizationCodeGrantRequest(
          as,
          client,
          oauth.ClientSecretBasic(registered.client_secret as string),
          params,
          'https://host.example/callback',
          verifier,
          insecure,
        ),
      ),
    );
    expect(tokens.scope).toBe('read');
    // It registered no refresh_token grant: none is given.
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('never tells the client the person’s email', () => {
    expect(clientAnswers.length).toBeGreaterThan(10);
    for (const answer of clientAnswers) expect(answer).not.toContain(PERSON);
  });
});

describe('authorization requests refused', () => {
  const get = (query: Record<string, string>, accept = 'text/html') =>
    app.inject({ url: `/api/oauth/authorize?${new URLSearchParams(query)}`, headers: { accept } });

  it('shows on the page, never redirects, what concerns the client or its redirect URI', async () => {
    const client = await registerHost();
    const started = await authorizationUrl(client);
    const query = Object.fromEntries(new URL(started.url).searchParams);
    for (const bad of <Record<string, string>[]>[
      { redirect_uri: 'https://evil.example/callback' },
      { redirect_uri: 'http://127.0.0.1:49152/other' },
      { redirect_uri: 'http://localhost:49152/callback' },
      { client_id: 'cl_AAAAAAAAAAAAAAAAAAAAAA' },
      { client_id: '' },
    ]) {
      const res = await get({ ...query, ...bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('Demande de connexion invalide');
    }
    // A program gets the same refusal in the OAuth format.
    const json = await get({ ...query, redirect_uri: 'https://evil.example/callback' }, 'application/json');
    expect(json.statusCode).toBe(400);
    expect(json.json()).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('redirect_uri'),
    });
  });

  it('sends the other errors back to the redirect URI with error, state and iss', async () => {
    const client = await registerHost();
    const started = await authorizationUrl(client);
    const query = Object.fromEntries(new URL(started.url).searchParams);
    const { code_challenge: _challenge, ...noChallenge } = query;
    const cases: [Record<string, string>, string][] = [
      [noChallenge, 'invalid_request'],
      [{ ...query, code_challenge_method: 'plain' }, 'invalid_request'],
      [{ ...noChallenge, code_challenge_method: '' }, 'invalid_request'],
      [{ ...query, response_type: 'token' }, 'unsupported_response_type'],
      [{ ...query, scope: 'read admin' }, 'invalid_scope'],
      [{ ...query, resource: 'https://elsewhere.example/api' }, 'invalid_target'],
    ];
    for (const [params, error] of cases) {
      const res = await get(params);
      expect(res.statusCode, JSON.stringify(params)).toBe(303);
      const back = new URL(res.headers.location as string);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get('error'), JSON.stringify(params)).toBe(error);
      expect(back.searchParams.get('state')).toBe(started.state);
      expect(back.searchParams.get('iss')).toBe(base);
    }
  });

  it('refuses a registration that would let a code leak: fragments, plain http elsewhere than loopback', async () => {
    for (const redirect_uris of [['https://host.example/cb#frag'], ['http://host.example/cb'], ['ftp://x/cb'], []]) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/oauth/register',
        payload: { client_name: 'x', grant_types: ['authorization_code'], redirect_uris },
      });
      expect(res.statusCode, JSON.stringify(redirect_uris)).toBe(400);
      expect(res.json().error).toBe('invalid_redirect_uri');
    }
  });

  it('leaves a page of the consent that nobody can answer without signing in', async () => {
    const client = await registerHost();
    const started = await authorizationUrl(client);
    const browser = new Browser(app);
    const res = await browser.get(pathOf(started.url));
    const consentPath = pathOf(res.headers.location as string);
    const page = await browser.get(consentPath);
    expect(page.body).toContain('Me connecter pour répondre');
    const demande = new URLSearchParams(consentPath.split('?')[1]).get('demande') as string;
    // No form on the page: the anti-forgery cookie's value is what a forged form would carry.
    const posted = await browser.post('/agents/connecter', {
      _csrf: browser.cookies.get('srp-form') as string,
      demande,
      decision: 'approve',
    });
    expect(posted.statusCode).toBe(401);
    expect(posted.headers.location).toBeUndefined();
  });
});
