import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { Browser, signIn } from './accounts.js';
import { form, type Registered, register, tokenFor } from './oauth.js';

export interface ClaimedAgent {
  client: Registered;
  /** A token with the scopes asked (granted by the person). */
  token: string;
  /** A token of the same claimed client asked with no scope: `read` only, still carrying the claim. */
  readToken: string;
}

/**
 * An agent claimed by `email` through the real flow (issue 26's claim): the client registers and
 * starts a claim asking `scope`, the person signs in (a link made as the emailed one is), opens
 * the claim's page, types the user code and approves what was asked; then the client's tokens.
 */
export async function claimedAgent(app: FastifyInstance, email: string, scope = 'alerts'): Promise<ClaimedAgent> {
  const client = await register(app, { client_name: 'Assistant de test' });
  const plain = await tokenFor(app, client);
  const started = await app.inject({
    method: 'POST',
    url: '/api/oauth/claim',
    headers: { authorization: `Bearer ${plain}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({ scope }),
  });
  expect(started.statusCode, started.body).toBe(200);
  const claim = started.json() as { claim_id: string; claim_url: string; user_code: string };
  const browser = await signIn(app, email, new Browser(app));
  const url = new URL(claim.claim_url);
  const page = await browser.get(`${url.pathname}${url.search}`);
  expect(page.statusCode, page.body).toBe(200);
  const answered = await browser.post('/agents/autoriser', {
    _csrf: Browser.token(page.body),
    claim: claim.claim_id,
    user_code: claim.user_code,
    scope: scope.split(' '),
    decision: 'approve',
  });
  expect(answered.statusCode, answered.body).toBe(303);
  return {
    client,
    token: await tokenFor(app, client, { scope: `read ${scope}` }),
    readToken: await tokenFor(app, client),
  };
}

/** A registered client nobody claimed, and its token. */
export async function unclaimedToken(app: FastifyInstance): Promise<string> {
  return tokenFor(app, await register(app, { client_name: 'Agent sans personne' }));
}
