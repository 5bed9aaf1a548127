import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

const TOKEN = /^[A-Za-z0-9_-]{22}$/;

export type GuardVerdict = 'ok' | 'cross-site' | 'no-cookie' | 'mismatch';

/**
 * Protection of the site's forms against cross-site submission.
 *
 * Every form post is checked by what the browser says of where it comes from (`fromThisSite`):
 * - `Sec-Fetch-Site`, when the browser sends it, must say `same-origin`;
 * - `Origin`, when it is a real origin (not `null`), must be the service's own.
 * A page cannot make a browser lie in either (they are forbidden header names), and every browser of
 * the last years sends `Sec-Fetch-Site`, and `Origin` on a POST (the pages with forms set
 * `Referrer-Policy: same-origin` so that it is never `null`). A request with neither comes from no
 * browser, or one that predates both: not a forgery a browser can be tricked into. This alone
 * guards the forms of the public pages (booking, « Prévenez-moi »), which carry no per-visitor value
 * so that a shared cache may keep them.
 *
 * The signed-in areas' forms add a double-submit token (`check`): a random value in a cookie
 * (HttpOnly, SameSite=Lax, `__Host-` over HTTPS) and the same value in the form; another site can
 * neither read the cookie nor make the browser send it with a cross-site POST (SameSite). The
 * cookie is a session cookie holding nothing but that random value: strictly necessary for the
 * forms (and for a booking's resubmission to find its reservation again), it needs no consent banner.
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

  /**
   * Where the browser says a request comes from: `Sec-Fetch-Site` when sent, else `Origin` (`null`
   * is an opaque origin: a sandboxed frame, or a page whose referrer policy hides it), else nothing.
   */
  #source(request: FastifyRequest): 'this-site' | 'cross-site' | 'opaque' | 'unsaid' {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) return site === 'same-origin' ? 'this-site' : 'cross-site';
    const origin = request.headers.origin;
    if (origin === undefined) return 'unsaid';
    if (origin === 'null') return 'opaque';
    return origin === this.#origin ? 'this-site' : 'cross-site';
  }

  /**
   * Whether a post of a form without token (the public pages') may be taken: the browser says it
   * comes from this site, or says nothing at all. An opaque origin is refused: without a token it
   * could be a sandboxed frame of another site, in a browser that predates `Sec-Fetch-Site`.
   */
  fromThisSite(request: FastifyRequest): boolean {
    const source = this.#source(request);
    return source === 'this-site' || source === 'unsaid';
  }

  /** Whether a form submission comes from one of the service's own pages, in this browser. */
  check(request: FastifyRequest, field: unknown): GuardVerdict {
    if (this.#source(request) === 'cross-site') return 'cross-site';
    const cookie = this.cookie(request);
    if (!cookie) return 'no-cookie';
    if (typeof field !== 'string' || !TOKEN.test(field)) return 'mismatch';
    return timingSafeEqual(Buffer.from(cookie), Buffer.from(field)) ? 'ok' : 'mismatch';
  }
}
