import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { Browser } from '../helpers/accounts.js';
import { frozenClock, testConfig } from '../helpers/app.js';
import { type ClientKey, clientKey, signAssertion } from '../helpers/assertions.js';
import { answerConsent, pathOf, signInAtConsent } from '../helpers/authorization-code.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { type DocumentServer, documentServer } from '../helpers/document-server.js';
import { freePort } from '../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp.js';

/*
 * The browser flow (authorization code + PKCE) for a client known by its metadata document (a URL
 * client_id, CIMD): the redirect URIs come from the document, served here by the client's own
 * loopback server (CIMD_ALLOW_HTTP_LOOPBACK, a test configuration only); the consent page shows
 * its name and the host that serves the document; the tokens act for the person, are accepted by
 * another instance without fetching anything, refresh, and are listed and withdrawn in
 * /mon-espace/agents. oauth4webapi plays the public client; a private_key_jwt one signs assertions.
 */

const PERSON = 'camille.cimd@example.org';
const clock = frozenClock('2026-03-02T09:00:00Z');
const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REGISTERED_REDIRECT = 'http://127.0.0.1/callback';
const REDIRECT = 'http://127.0.0.1:49160/callback';

let db: TestDatabase;
let smtp: TestSmtpServer;
let documents: DocumentServer;
let app: FastifyInstance;
let second: FastifyInstance;
let base: string;
let as: oauth.AuthorizationServer;
let key: ClientKey;
let published = 0;

beforeAll(async () => {
  db = await openTestDatabase();
  smtp = await startSmtpServer();
  documents = await documentServer();
  key = await clientKey('ES256');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    PUBLIC_BASE_URL: base,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Stages <connexion@stages.example.test>',
    CIMD_ALLOW_HTTP_LOOPBACK: 'true',
    CIMD_FETCH_TIMEOUT_MS: '500',
  };
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
  await second?.close();
  await app?.close();
  await documents?.close();
  await smtp?.close();
  await db?.dispose();
});

/** Publishes a metadata document at a fresh path: the client (its client_id is the URL) and the path. */
function publish(extra: Record<string, unknown> = {}): { client: oauth.Client; path: string } {
  const path = `/hosts/${++published}/client.json`;
  const clientId = `${documents.base}${path}`;
  documents.serve(path, {
    body: {
      client_id: clientId,
      client_name: 'Hôte par document',
      redirect_uris: [REGISTERED_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...extra,
    },
  });
  return { client: { client_id: clientId, token_endpoint_auth_method: 'none' }, path };
}

async function authorizationUrl(client: oauth.Client, extra: Record<string, string> = {}) {
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

/** Authorize, sign in by email, read the consent page, approve: the callback and the page. */
async function approve(client: oauth.Client, browser?: Browser) {
  const started = await authorizationUrl(client);
  const signedIn = await signInAtConsent(app, smtp, started.url, PERSON, browser);
  const consent = await signedIn.browser.get(signedIn.consentPath);
  const answered = await answerConsent(signedIn.browser, signedIn.consentPath, 'approve');
  expect(answered.statusCode, answered.body).toBe(303);
  return {
    ...started,
    browser: signedIn.browser,
    consent: consent.body,
    callback: new URL(answered.headers.location as string),
  };
}

async function exchange(client: oauth.Client, started: { verifier: string; state: string; callback: URL }) {
  const params = oauth.validateAuthResponse(as, client, started.callback, started.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    REDIRECT,
    started.verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

async function tokenRequest(fields: Record<string, string>) {
  const res = await fetch(`${base}/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: (await res.json()) as Record<string, string>,
  };
}

const toolsList = (instance: FastifyInstance, accessToken: string) =>
  instance.inject({
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

/** An authorization request a browser sends; the answer is not followed. */
const browserAuthorize = (url: string) =>
  app.inject({ method: 'GET', url: pathOf(url), headers: { accept: 'text/html' } });

describe('the browser flow with a URL client_id (a client ID metadata document)', () => {
  it('authorizes with the redirect URIs of the document, and shows its name and host', async () => {
    const { client } = publish();
    const started = await approve(client);
    expect(started.consent).toContain('Hôte par document');
    expect(started.consent).toContain('non vérifié');
    // The host serving the document is shown, and said to be verified (unlike the name).
    expect(started.consent).toContain(`<strong>${new URL(documents.base).host}</strong>`);
    expect(started.consent).toContain('vérifié : sa description vient de ce site');
    expect(started.callback.origin + started.callback.pathname).toBe(REDIRECT);
    expect(started.callback.searchParams.get('iss')).toBe(base);

    const tokens = await exchange(client, started);
    expect(tokens.scope).toBe('read alerts');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const claims = decodeJwt(tokens.access_token);
    expect(claims.client_id).toBe(client.client_id);
    expect(claims.sub).toMatch(/^psn_/);
  });

  it('gives tokens another instance accepts without fetching the document, which refresh and are withdrawn', async () => {
    const { client, path } = publish({ client_name: 'Hôte à retirer' });
    const started = await approve(client);
    const tokens = await exchange(client, started);
    const fetched = documents.hits(path);
    expect(fetched).toBeGreaterThan(0);

    // The token check on the MCP path (KnownClients) trusts a URL client's signed token: no fetch.
    const listed = await toolsList(second, tokens.access_token);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(documents.hits(path)).toBe(fetched);

    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refresh_token as string,
      insecure,
    );
    const refreshed = await oauth.processRefreshTokenResponse(as, client, response);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(refreshed.access_token).sub).toBe(decodeJwt(tokens.access_token).sub);

    // The person sees it in their area, by its document's name and host, and withdraws it.
    const list = await started.browser.get('/mon-espace/agents');
    expect(list.statusCode).toBe(200);
    const card = list.body.split('<article').find((c) => c.includes('Hôte à retirer')) as string;
    expect(card).toContain(`Publié par le site <strong>${new URL(documents.base).host}</strong>`);
    const claimId = /action="\/mon-espace\/agents\/([A-Za-z0-9_-]{22})\/retrait"/.exec(card)?.[1] as string;
    const revoked = await started.browser.post(`/mon-espace/agents/${claimId}/retrait`, {
      _csrf: Browser.token(list.body),
    });
    expect(revoked.statusCode).toBe(303);
    expect((await toolsList(second, refreshed.access_token)).statusCode).toBe(401);
    const refused = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: client.client_id,
      refresh_token: refreshed.refresh_token as string,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_grant');
  });

  it('lets a document client with private_key_jwt exchange its code with a signed assertion, and only so', async () => {
    const { client } = publish({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
    const started = await approve(client);
    const code = started.callback.searchParams.get('code') as string;
    const grant = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: started.verifier,
    };
    // Without its assertion, the client is not authenticated; the code is not spent.
    const bare = await tokenRequest({ ...grant, client_id: client.client_id });
    expect(bare.status).toBe(401);
    expect(bare.body.error).toBe('invalid_client');
    expect(bare.body.error_description).toContain('private_key_jwt');
    expect(bare.challenge).toBeNull();

    const assertion = await signAssertion(key, {
      clientId: client.client_id,
      aud: `${base}/api/oauth/token`,
      now: Math.floor(clock.now().getTime() / 1000),
    });
    const signed = await tokenRequest({
      ...grant,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body.scope).toBe('read alerts');
    expect(decodeJwt(signed.body.access_token as string).client_id).toBe(client.client_id);
  });

  it('refuses, on the page and without redirecting, a redirect URI or a document it cannot trust', async () => {
    const { client } = publish();
    const wrong = await browserAuthorize(
      (await authorizationUrl(client, { redirect_uri: 'https://attacker.example/callback' })).url,
    );
    expect(wrong.statusCode).toBe(400);
    expect(wrong.headers.location).toBeUndefined();
    expect(wrong.body).toContain('redirect_uri is not one its metadata document lists.');

    const readOnly = publish({
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [key.publicJwk] },
    });
    const noCode = await browserAuthorize((await authorizationUrl(readOnly.client)).url);
    expect(noCode.statusCode).toBe(400);
    expect(noCode.body).toContain('does not list authorization_code in grant_types');

    // A redirect URI a registration would refuse (neither https nor loopback http).
    const custom = publish({ redirect_uris: ['http://example.org/callback'] });
    const unsafe = await browserAuthorize(
      (await authorizationUrl(custom.client, { redirect_uri: 'http://example.org/callback' })).url,
    );
    expect(unsafe.statusCode).toBe(400);
    expect(unsafe.headers.location).toBeUndefined();
    expect(unsafe.body).toContain('https, or http on the loopback interface');

    // A document that is not there: a program is told why, as OAuth JSON.
    const missing = await app.inject({
      method: 'GET',
      url: pathOf(
        (
          await authorizationUrl({
            client_id: `${documents.base}/hosts/absent/client.json`,
            token_endpoint_auth_method: 'none',
          })
        ).url,
      ),
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ error: 'invalid_request' });
    expect(missing.json().error_description).toContain('answered HTTP 404');
  });

  it('gives a public document client no client_credentials token: it proved nothing', async () => {
    const { client } = publish({ grant_types: ['authorization_code', 'client_credentials'] });
    const refused = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    expect(refused.body.error_description).toContain('"none"');
  });
});
