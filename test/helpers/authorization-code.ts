import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { Browser, followLink, linkPath } from './accounts.js';
import type { TestSmtpServer } from './smtp.js';

/** A path and query of an absolute or relative address on the service. */
export const pathOf = (url: string) => {
  const parsed = new URL(url, 'http://x');
  return `${parsed.pathname}${parsed.search}`;
};

/**
 * A person's browser goes to an agent host's authorization URL (on `app`), is sent to the consent
 * page, asks for a sign-in link there, follows the link emailed to `smtp` and lands back on the
 * consent page, signed in: the browser and the consent page's path.
 */
export async function signInAtConsent(
  app: FastifyInstance,
  smtp: TestSmtpServer,
  authorizationUrl: string,
  email: string,
  browser = new Browser(app),
): Promise<{ browser: Browser; consentPath: string }> {
  const started = await browser.get(pathOf(authorizationUrl));
  expect(started.statusCode, started.body).toBe(303);
  const consentPath = pathOf(started.headers.location as string);
  expect(consentPath).toMatch(/^\/agents\/connecter\?demande=[A-Za-z0-9_-]{22}$/);
  const first = await browser.get(consentPath);
  expect(first.statusCode).toBe(200);
  if (!first.body.includes('Me connecter pour répondre')) return { browser, consentPath };
  const signInHref = /href="(\/connexion\?suite=[^"]+)"/.exec(first.body)?.[1]?.replace(/&amp;/g, '&');
  expect(signInHref).toBeDefined();
  const signInPage = await browser.get(signInHref as string);
  const before = smtp.received.length;
  const sent = await browser.post('/connexion', {
    _csrf: Browser.token(signInPage.body),
    suite: Browser.field(signInPage.body, 'suite'),
    email,
  });
  expect(sent.statusCode).toBe(200);
  await app.jobs.drain();
  await expect.poll(() => smtp.received.length).toBeGreaterThan(before);
  const mail = smtp.received.at(-1);
  expect(mail?.to).toContain(email);
  const link = /https?:\/\/\S+\/connexion\/lien\/\S+/.exec(mail?.text ?? '')?.[0] as string;
  const landed = await followLink(browser, `${linkPath(link)}${new URL(link).search}`);
  expect(landed.statusCode).toBe(303);
  expect(landed.headers.location).toBe(consentPath);
  return { browser, consentPath };
}

/** The signed-in person answers the consent page: the response (a 303 to the redirect URI when answered). */
export async function answerConsent(
  browser: Browser,
  consentPath: string,
  decision: 'approve' | 'deny',
  scopes?: string[],
) {
  const page = await browser.get(consentPath);
  expect(page.statusCode, page.body).toBe(200);
  const demande = new URLSearchParams(consentPath.split('?')[1]).get('demande') as string;
  const checked = scopes ?? [...page.body.matchAll(/name="scope" value="([a-z]+)"/g)].map((m) => m[1] as string);
  return browser.post('/agents/connecter', { _csrf: Browser.token(page.body), demande, decision, scope: checked });
}
