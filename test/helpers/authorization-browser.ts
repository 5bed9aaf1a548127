import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestSmtpServer } from './smtp.js';

/** An agent host's loopback redirect URI (RFC 8252 §7.3): a listener that keeps each callback's URL. */
export interface CallbackListener {
  /** `http://127.0.0.1:<port>/callback`. */
  url: string;
  received: URL[];
  close(): Promise<void>;
}

export async function startCallbackListener(): Promise<CallbackListener> {
  const received: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // The browser also asks for /favicon.ico.
    if (url.pathname !== '/callback') return response.writeHead(404).end();
    received.push(url);
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('Vous pouvez fermer cette page.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * On the consent page a signed-out person reached from an agent host's authorization URL, the person
 * asks for a sign-in link, follows the one emailed to them (read from `smtp`) and lands back on the
 * consent page, signed in. Does nothing when the page already answers a signed-in person.
 */
export async function signInOnConsentPage(page: Page, app: FastifyInstance, smtp: TestSmtpServer, email: string) {
  if ((await page.getByRole('link', { name: 'Me connecter pour répondre' }).count()) === 0) return;
  const before = smtp.received.length;
  await page.getByRole('link', { name: 'Me connecter pour répondre' }).click();
  await page.getByLabel('Adresse e-mail').fill(email);
  await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
  await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);
  await app.jobs.drain();
  const link = () =>
    smtp.received
      .slice(before)
      .map((m) => /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/\S+/.exec(m.text ?? '')?.[0])
      .find(Boolean);
  await expect.poll(link).toBeDefined();
  await page.goto(link() as string);
  await Promise.all([
    page.waitForURL('**/agents/connecter?demande=*'),
    page.getByRole('button', { name: 'Me connecter' }).click(),
  ]);
}

/**
 * A person, in Chromium, opens the authorization URL an agent host gave them, signs in with the
 * link emailed to them (read from `smtp`) and presses « Autoriser »: resolves with the URL the
 * browser was sent back to (the host's callback).
 */
export async function approveInChromium(
  page: Page,
  app: FastifyInstance,
  smtp: TestSmtpServer,
  authorizationUrl: string,
  email: string,
  callback: CallbackListener,
): Promise<URL> {
  await page.goto(authorizationUrl);
  await page.waitForURL('**/agents/connecter?demande=*');
  await signInOnConsentPage(page, app, smtp, email);
  expect(await page.getByText(/non vérifié/).count()).toBe(1);
  const seen = callback.received.length;
  await page.getByRole('button', { name: 'Autoriser' }).click();
  await expect.poll(() => callback.received.length).toBeGreaterThan(seen);
  return callback.received.at(-1) as URL;
}
