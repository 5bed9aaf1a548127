import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { buildTestApp, frozenClock, type TestApp } from './app.js';
import { FIXTURE_CATALOGUE, FIXTURE_NOW } from './fixtures.js';
import { startSmtpServer, type TestSmtpServer } from './smtp.js';

/*
 * Headless Debian Chromium driven by playwright-core (Playwright's own browser download cannot
 * work here), axe-core run inside the page, and screenshots kept as test artefacts.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
}

/**
 * Holds the first free port of this worktree's range (4200–4299) on 127.0.0.1 until `release`:
 * known before the app is built, so that its PUBLIC_BASE_URL — hence every bookingUrl and url —
 * is the address it listens on, and held meanwhile, so that browser test files running at once in
 * other workers do not take the same one.
 */
async function holdFreePort(first = 4200, last = 4299): Promise<{ port: number; release(): Promise<void> }> {
  for (let port = first; port <= last; port++) {
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (free) return { port, release: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }
  throw new Error(`no free port in ${first}–${last}`);
}

/** The service on the fixture catalogue and the frozen clock, listening on a free port that its pages name. */
export async function listeningFixtureApp(env: Record<string, string> = {}): Promise<{ t: TestApp; base: string }> {
  for (let first = 4200; ; ) {
    const { port, release } = await holdFreePort(first);
    const base = `http://127.0.0.1:${port}`;
    const t = await buildTestApp({
      catalogue: FIXTURE_CATALOGUE,
      clock: frozenClock(FIXTURE_NOW),
      env: { ...env, PUBLIC_BASE_URL: base },
    }).finally(release);
    try {
      await t.app.listen({ port, host: '127.0.0.1' });
      return { t, base };
    } catch (err) {
      await t.close();
      // Taken in the instant between its release and the app's listen: the next one.
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
      first = port + 1;
    }
  }
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe on the page and returns its serious and critical violations. Injected through the
 * DevTools protocol, so the page's CSP (no scripts at all) does not stand in the way.
 */
export async function seriousViolations(page: Page): Promise<{ id: string; help: string; targets: string[] }[]> {
  await page.evaluate(await axeSource);
  const violations = (await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: unknown }> } }
    ).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  })) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) }));
}

/** Screenshots land in .test-artifacts/site/<project>/ (git-ignored). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = join('.test-artifacts', 'site', process.env.TEST_DB ?? 'local');
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}

/** A phone-sized context with JavaScript off (the pages must work without it), and one with scripts on for axe. */
export async function phoneContexts(browser: Browser): Promise<{ phone: BrowserContext; axe: BrowserContext }> {
  const phone = await browser.newContext({
    viewport: { width: 390, height: 844 },
    locale: 'fr-FR',
    javaScriptEnabled: false,
    isMobile: true,
    hasTouch: true,
  });
  const axe = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'fr-FR' });
  return { phone, axe };
}

/**
 * axe on a copy of the page served at the same address in the scripts-on context (scripts are off
 * in the page itself): no serious or critical violation; then a screenshot.
 */
export async function checkPage(page: Page, axe: BrowserContext, name: string): Promise<void> {
  const url = page.url();
  const html = await page.content();
  const copy = await axe.newPage();
  await copy.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
  await copy.goto(url);
  expect(await seriousViolations(copy), name).toEqual([]);
  await copy.close();
  await screenshot(page, name);
}

/** A person's phone against the fixture service with an SMTP server of its own, as the people's tests use it. */
export interface PhoneWithMail {
  t: TestApp;
  base: string;
  smtp: TestSmtpServer;
  page: Page;
  /** axe on the page as it stands (no serious or critical violation), then a screenshot named `name`. */
  check(name: string): Promise<void>;
  close(): Promise<void>;
}

/** The listening fixture service (emails to a test SMTP server), Chromium, a phone-sized page. */
export async function phoneWithMail(): Promise<PhoneWithMail> {
  const smtp = await startSmtpServer();
  const { t, base } = await listeningFixtureApp({ SMTP_URL: smtp.url });
  const browser = await launchChromium();
  const contexts = await phoneContexts(browser);
  const page = await contexts.phone.newPage();
  return {
    t,
    base,
    smtp,
    page,
    check: (name) => checkPage(page, contexts.axe, name),
    async close() {
      await browser.close();
      await t.close();
      await smtp.close();
    },
  };
}
