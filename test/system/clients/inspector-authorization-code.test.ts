import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../helpers/browser.js';
import { type ListeningApp, listeningApp } from '../../helpers/listening-app.js';
import { form, register } from '../../helpers/oauth.js';
import { freePort } from '../../helpers/ports.js';
import { startSmtpServer, type TestSmtpServer } from '../../helpers/smtp.js';

/*
 * The MCP Inspector's CLI 2.x, unmodified, reaching the authenticated tier through the browser flow
 * (issue 27). Like mcp-remote it starts OAuth only on a 401, which the service never sends to a
 * request without a token (spec.md §5.1): it starts, as a user whose stored token has expired,
 * with one in its OAuth store. It prints the authorization URL (no TTY here: MCP_AUTO_OPEN_ENABLED
 * lets it proceed); the test's Chromium opens it for the person; the code comes back to the
 * Inspector's loopback callback. The next runs use the stored tokens, and refresh them on the 401
 * of an expired one.
 */

const require = createRequire(import.meta.url);
const PERSON = 'inspecteur@example.org';

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
  work = await mkdtemp(join(tmpdir(), 'inspector-code-'));
});
afterAll(async () => {
  await chromium?.close();
  await t?.close();
  await smtp?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function inspectorCommand(): [string, string[]] {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const recent = major > 22 || (major === 22 && minor >= 19);
  return recent ? [process.execPath, []] : ['npx', ['-y', '-p', 'node@24', 'node']];
}

const statePath = () => join(work, 'oauth.json');

/** Runs the Inspector CLI; `onErr` sees its stderr as it comes. */
async function inspector(args: string[], onErr: (text: string) => void = () => {}) {
  const [command, pre] = inspectorCommand();
  const cli = require.resolve('@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const child = spawn(command, [...pre, cli, '--cli', t.mcpUrl.href, ...args], {
    env: {
      ...process.env,
      HOME: join(work, 'home'),
      MCP_INSPECTOR_OAUTH_STATE_PATH: statePath(),
      MCP_INSPECTOR_SECRET_STORE: 'file',
      // No TTY in a test: let it run the interactive flow; it prints the URL the person opens.
      MCP_AUTO_OPEN_ENABLED: 'true',
      // No desktop here: nothing to open a browser with.
      DISPLAY: '',
      BROWSER: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
    onErr(err);
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out, err };
}

/** A token this service issued two hours ago, in the Inspector's OAuth store (its legacy plaintext form, which it migrates). */
async function storeExpiredToken() {
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
  await mkdir(work, { recursive: true });
  await writeFile(
    statePath(),
    JSON.stringify({
      servers: { [t.mcpUrl.href]: { tokens: { access_token, token_type: 'Bearer' } } },
      idpSessions: {},
    }),
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
}

describe('MCP Inspector CLI 2.x through the browser flow (Node ≥ 22.19)', { timeout: 180_000 }, () => {
  it('signs the person in, lists the tools as their authorized host, and refreshes later', async () => {
    await storeExpiredToken();
    const callbackPort = await freePort();
    let opened: Promise<void> | undefined;
    const first = await inspector(
      ['--method', 'tools/list', '--callback-url', `http://127.0.0.1:${callbackPort}/oauth/callback`],
      (err) => {
        const url = /Please navigate to:\s+(\S+)/.exec(err)?.[1];
        if (url && !opened) opened = approveInChromium(url);
      },
    );
    await opened;
    expect(first.code, first.err).toBe(0);
    const { tools } = JSON.parse(first.out) as { tools: Array<{ name: string }> };
    expect(tools.map((tool) => tool.name)).toContain('search_stages');
    const served = t.exchanges.filter((e) => e.path === '/api/mcp' && e.method === 'POST' && e.status < 300);
    expect(served.at(-1)?.identity).toMatchObject({
      kind: 'client',
      claim: { subject: expect.stringMatching(/^psn_/) },
    });

    // Two hours later on the server's clock: the 401, a refresh_token grant, the call again.
    now += 2 * 3600 * 1000;
    t.clock.set(new Date(now).toISOString());
    t.exchanges.length = 0;
    const later = await inspector(['--method', 'tools/list']);
    expect(later.code, later.err).toBe(0);
    const seen = t.exchanges.map((e) => `${e.method} ${e.path} ${e.status}`);
    expect(seen).toEqual(expect.arrayContaining(['POST /api/mcp 401', 'POST /api/oauth/token 200']));
    expect(t.exchanges.filter((e) => e.path === '/api/mcp').at(-1)).toMatchObject({
      status: 200,
      identity: { kind: 'client', claim: { subject: expect.stringMatching(/^psn_/) } },
    });
  });
});
