import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../helpers/browser.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';
import { form, register } from '../../helpers/oauth.js';
import { freePort } from '../../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

/*
 * mcp-remote 0.15 (the stdio ↔ HTTP proxy many desktop hosts use), unmodified, reaching the
 * authenticated tier through the browser flow (issue 27). It starts OAuth only on a 401, and the
 * service never answers 401 to a request without a token (spec.md §5.1); so, as a user whose stored
 * token has expired, it starts with one: the 401, its own registration (a public client with its
 * localhost callback), the authorization URL it prints, which Chromium opens for the person (sign-in
 * by emailed link, « Autoriser »), the code exchange at its callback, and the tools as that person.
 */

const require = createRequire(import.meta.url);
const PERSON = 'mcp.remote@example.org';

let t: ListeningApp;
let smtp: TestSmtpServer;
let chromium: Browser;
let page: Page;
let work: string;
let now = Date.now();

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await listeningApp(new Date(now).toISOString(), { SMTP_URL: smtp.url });
  chromium = await launchChromium();
  page = await (await chromium.newContext()).newPage();
  work = await mkdtemp(join(tmpdir(), 'mcp-remote-code-'));
});
afterAll(async () => {
  await chromium?.close();
  await t?.close();
  await smtp?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** A token this service issued two hours ago (expired now), as mcp-remote keeps tokens on disk. */
async function storeExpiredToken(configDir: string, serverUrl: string) {
  const client = await register(t.app, { client_name: 'an earlier session' });
  t.clock.set(new Date(now - 2 * 3600 * 1000).toISOString());
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form({
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    }),
  });
  t.clock.set(new Date(now).toISOString());
  const { access_token } = res.json() as { access_token: string };
  const dir = join(configDir, 'mcp-remote-v1');
  await mkdir(dir, { recursive: true });
  const hash = createHash('md5').update(serverUrl).digest('hex');
  await writeFile(
    join(dir, `${hash}_tokens.json`),
    JSON.stringify({ access_token, token_type: 'Bearer', expires_in: 3600, expires_at: now - 3600 * 1000 }),
  );
}

async function approveInChromium(authorizationUrl: string) {
  await page.goto(authorizationUrl);
  await page.waitForURL('**/agents/connecter?demande=*');
  await page.getByRole('link', { name: 'Me connecter pour répondre' }).click();
  await page.getByLabel('Adresse e-mail').fill(PERSON);
  await page.getByRole('button', { name: 'Recevoir un lien de connexion' }).click();
  await expect.poll(() => page.getByRole('heading', { name: 'Vérifiez vos e-mails' }).count()).toBe(1);
  await t.app.jobs.drain();
  const link = () =>
    smtp.received.map((m) => /http:\/\/127\.0\.0\.1:\d+\/connexion\/lien\/\S+/.exec(m.text ?? '')?.[0]).find(Boolean);
  await expect.poll(link).toBeDefined();
  await page.goto(link() as string);
  await Promise.all([
    page.waitForURL('**/agents/connecter?demande=*'),
    page.getByRole('button', { name: 'Me connecter' }).click(),
  ]);
  await page.getByRole('button', { name: 'Autoriser' }).click();
  // mcp-remote's own callback page.
  await page.waitForURL('http://localhost:*/oauth/callback?*');
}

describe('mcp-remote through the browser flow', () => {
  it('signs the person in, then serves the tools as their authorized host', { timeout: 120_000 }, async () => {
    const configDir = join(work, 'mcp-auth');
    const serverUrl = t.mcpUrl.href;
    await storeExpiredToken(configDir, serverUrl);
    const callbackPort = await freePort();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [require.resolve('mcp-remote/dist/proxy.js'), serverUrl, String(callbackPort), '--transport', 'http-only'],
      // No browser helper on the PATH: mcp-remote prints the URL, and the test's Chromium opens it.
      env: { PATH: dirname(process.execPath), HOME: work, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'desktop-host', version: '1.0.0' });
    const connected = client.connect(transport);
    await expect
      .poll(() => /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1], { timeout: 30_000 })
      .toBeDefined();
    const authorizationUrl = /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1] as string;
    expect(new URL(authorizationUrl).searchParams.get('code_challenge_method')).toBe('S256');
    await approveInChromium(authorizationUrl);
    await connected;
    try {
      t.exchanges.length = 0;
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('search_stages');
      const mcp = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST');
      expect(mcp.length).toBeGreaterThan(0);
      for (const e of mcp) {
        expect(e.status).toBeLessThan(300);
        expect(e.identity).toMatchObject({ kind: 'client', claim: { subject: expect.stringMatching(/^psn_/) } });
      }

      // An hour later on the server's clock: the 401, mcp-remote's refresh, the call again.
      now += 2 * 3600 * 1000;
      t.clock.set(new Date(now).toISOString());
      t.exchanges.length = 0;
      const found = await client.callTool({ name: 'search_stages', arguments: { dept: '69', limit: 2 } });
      expect(found.isError).toBeFalsy();
      const seen = t.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`);
      expect(seen).toEqual(
        expect.arrayContaining(['POST /api/mcp 401', 'POST /api/oauth/token 200', 'POST /api/mcp 200']),
      );
      expect(seen.indexOf('POST /api/mcp 401')).toBeLessThan(seen.indexOf('POST /api/oauth/token 200'));
      expect(t.exchanges.at(-1)).toMatchObject({
        status: 200,
        identity: { kind: 'client', claim: { subject: expect.stringMatching(/^psn_/) } },
      });
    } finally {
      await client.close();
    }
  });
});
