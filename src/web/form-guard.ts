import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TOKEN = /^[A-Za-z0-9_-]{22}$/;

export type GuardVerdict = 'ok' | 'cross-site' | 'no-cookie' | 'mismatch';

/**
 * Protection of the site's forms against cross-site submission, three ways at once:
 * - a double-submit token: a random value in a cookie (HttpOnly, SameSite=Lax, `__Host-` over
 *   HTTPS) and the same value in the form; another site can neither read the cookie nor make the
 *   browser send it with a cross-site POST (SameSite), so it cannot produce a matching pair;
 * - `Sec-Fetch-Site`, when the browser sends it, must say `same-origin`;
 * - `Origin`, when it is a real origin (not `null`), must be the service's own.
 * The cookie is a session cookie holding nothing but that random value: strictly necessary for the
 * form, it needs no consent banner.
 */
export class FormGuard {
  readonly cookieName: string;
  readonly #secure: boolean;
  readonly #origin: string;

  constructor(publicBaseUrl: string) {
    this.#secure = publicBaseUrl.startsWith('https://');
    this.#origin = new URL(publicBaseUrl).origin;
    this.cookieName = this.#secure ? '__Host-srp-form' : 'srp-form';
  }

  /** The visitor's form cookie, when they have a well-formed one. */
  cookie(request: FastifyRequest): string | undefined {
    const header = request.headers.cookie;
    if (!header) return undefined;
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq < 0 || part.slice(0, eq).trim() !== this.cookieName) continue;
      const value = part.slice(eq + 1).trim();
      if (TOKEN.test(value)) return value;
    }
    return undefined;
  }

  /** The token to put in a form: the visitor's cookie, or a new one set on this answer. */
  tokenFor(request: FastifyRequest, reply: FastifyReply): string {
    const existing = this.cookie(request);
    if (existing) return existing;
    const token = randomBytes(16).toString('base64url');
    reply.header(
      'set-cookie',
      `${this.cookieName}=${token}; Path=/; HttpOnly; SameSite=Lax${this.#secure ? '; Secure' : ''}`,
    );
    return token;
  }

  /** Whether a form submission comes from one of the service's own pages, in this browser. */
  check(request: FastifyRequest, field: unknown): GuardVerdict {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined && site !== 'same-origin') return 'cross-site';
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null' && origin !== this.#origin) return 'cross-site';
    const cookie = this.cookie(request);
    if (!cookie) return 'no-cookie';
    if (typeof field !== 'string' || !TOKEN.test(field)) return 'mismatch';
    return timingSafeEqual(Buffer.from(cookie), Buffer.from(field)) ? 'ok' : 'mismatch';
  }
}
