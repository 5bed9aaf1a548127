import { createHmac, timingSafeEqual } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newSecret } from '../core/secrets.js';
import type { Db } from '../db/connect.js';
import { serviceSecrets } from '../db/schema.js';
import { SESSION_ID } from './sessions.js';

/**
 * The signed-in session's cookie: `<session id>.<HMAC-SHA256 of it>`, HttpOnly, SameSite=Lax,
 * Secure and `__Host-` prefixed over HTTPS, for the whole site (the areas and the sign-in pages).
 * It lasts as long as the browser session; the server decides when the session ends. The first
 * secret signs and every one verifies, so a new secret put first (the old one kept after it for
 * a week, the sessions' longest life) rotates the key without signing anyone out.
 */
export class SessionCookie {
  readonly name: string;
  readonly #secure: boolean;
  readonly #secrets: readonly string[];

  constructor(publicBaseUrl: string, secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('a session cookie needs a secret');
    this.#secure = publicBaseUrl.startsWith('https://');
    this.name = this.#secure ? '__Host-srp-session' : 'srp-session';
    this.#secrets = secrets;
  }

  /** The session id the request's cookie names, when its signature holds. */
  sessionId(request: FastifyRequest): string | undefined {
    const value = cookieValue(request.headers.cookie, this.name);
    if (!value) return undefined;
    const dot = value.indexOf('.');
    const id = value.slice(0, dot);
    if (dot < 0 || !SESSION_ID.test(id)) return undefined;
    const given = Buffer.from(value.slice(dot + 1));
    for (const secret of this.#secrets) {
      const expected = Buffer.from(sign(secret, id));
      if (expected.length === given.length && timingSafeEqual(expected, given)) return id;
    }
    return undefined;
  }

  set(reply: FastifyReply, sessionId: string): void {
    reply.header(
      'set-cookie',
      `${this.name}=${sessionId}.${sign(this.#secrets[0] as string, sessionId)}; ${this.#attributes()}`,
    );
  }

  clear(reply: FastifyReply): void {
    reply.header('set-cookie', `${this.name}=; Max-Age=0; ${this.#attributes()}`);
  }

  #attributes(): string {
    return `Path=/; HttpOnly; SameSite=Lax${this.#secure ? '; Secure' : ''}`;
  }
}

const SECRET_NAME = 'session-cookie';

function sign(secret: string, id: string): string {
  return createHmac('sha256', secret).update(id).digest('base64url');
}

/** A cookie's value from a Cookie header, the first of that name. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The secrets that sign session cookies: SESSION_SECRETS when set, else one the service made and
 * keeps in its database, the same for every instance and every restart.
 */
export async function sessionSecrets(db: Db, configured: readonly string[] | undefined): Promise<readonly string[]> {
  if (configured?.length) return configured;
  await db
    .insert(serviceSecrets)
    .values({ name: SECRET_NAME, value: newSecret(32) })
    .onConflictDoNothing();
  const [row] = await db
    .select({ value: serviceSecrets.value })
    .from(serviceSecrets)
    .where(eq(serviceSecrets.name, SECRET_NAME));
  if (!row) throw new Error('the session cookie secret was neither made nor found');
  return [row.value];
}
