import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { sendSignInLink } from '../../src/accounts/sign-in.js';

/** A browser's cookies, as a page sets them, sent back with each request. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(readonly app: FastifyInstance) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(options: InjectOptions & { url: string }) {
    const res = await this.app.inject({
      ...options,
      headers: { ...(this.cookies.size ? { cookie: this.cookieHeader } : {}), ...options.headers },
    });
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const eq = (pair ?? '').indexOf('=');
      const name = (pair ?? '').slice(0, eq);
      const value = (pair ?? '').slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  get(url: string) {
    return this.request({ url });
  }

  /** Posts a form as the page's own (same-origin) submission; a list is a field sent once per value (checkboxes). */
  post(url: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}) {
    const payload = new URLSearchParams();
    for (const [name, value] of Object.entries(fields))
      for (const one of Array.isArray(value) ? value : [value]) payload.append(name, one);
    return this.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', ...headers },
      payload: payload.toString(),
    });
  }

  /** The anti-forgery token of the last page's forms. */
  static token(html: string): string {
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    expect(token, 'a form with its anti-forgery token').toBeDefined();
    return token as string;
  }

  /** The value of the page's (first) field `name`, as a hidden input carries it. */
  static field(html: string, name: string): string {
    const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
    expect(value, `a field named ${name}`).toBeDefined();
    return value as string;
  }

  /** A create form's anti-forgery token and one-time submission id (accounts/form-submissions.tsx). */
  static createForm(html: string): { _csrf: string; _submission: string } {
    return { _csrf: Browser.token(html), _submission: Browser.field(html, '_submission') };
  }
}

/** The path of a sign-in link's URL. */
export const linkPath = (url: string) => new URL(url).pathname;

/** Opens a sign-in link's page and presses its button: the browser is signed in. */
export async function followLink(browser: Browser, path: string) {
  const page = await browser.get(path);
  expect(page.statusCode, page.body).toBe(200);
  return browser.post(path, { _csrf: Browser.token(page.body) });
}

/** Signs `email` in with a link made as `login-link` makes it (no email sent). */
export async function signIn(app: FastifyInstance, email: string, browser = new Browser(app)): Promise<Browser> {
  const url = await sendSignInLink(app.database.db, email, app.clock.now(), {
    baseUrl: app.config.publicBaseUrl,
    platformName: app.config.platformName,
    mail: false,
  });
  const res = await followLink(browser, linkPath(url));
  expect(res.statusCode, res.body).toBe(303);
  // A centre member lands in the centres' area, an admin with no centre role in the operators',
  // anyone else in the people's area (landing.test.ts).
  expect(['/espace-centre', '/administration', '/mon-espace']).toContain(res.headers.location);
  return browser;
}
