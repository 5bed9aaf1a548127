import { createHash } from 'node:crypto';
import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { guardedRedisStore } from './redis-store.js';

export const RATE_LIMITED = 'RATE_LIMITED';
const IPV6_BUCKET_PREFIX = 64;
const HOUR_MS = 3_600_000;

/**
 * Route configuration for what stays outside every budget: monitoring and the static discovery
 * documents (cheap and cacheable, so discovering the API never costs a caller its budget). Each
 * such route says so where it is defined.
 */
export const NOT_RATE_LIMITED = { rateLimit: false } as const;

/** Stricter per-IP budgets for the endpoints that create credentials or check secrets. */
const REGISTER_PATH = '/api/oauth/register';
const TOKEN_PATH = '/api/oauth/token';

export interface RateLimitStatus {
  store: 'memory' | 'redis';
  status: 'up' | 'down';
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where rate-limit counters live, and whether that store answers; undefined when off. */
    rateLimitStatus(): RateLimitStatus | undefined;
    /**
     * Counts `units` more requests against the caller's budget (for work the route hook does not
     * see: the extra calls of a JSON-RPC batch, refusals answered before it). Sets the RateLimit
     * headers; throws the 429 error when the budget is spent. A no-op when limiting is off.
     */
    chargeRateLimit(request: FastifyRequest, reply: FastifyReply, units?: number): Promise<void>;
    /**
     * Counts one reservation against the address's hourly reservation budget
     * (RATE_LIMIT_RESERVATIONS_PER_HOUR), on top of the general budget. When it is spent, says in
     * how many seconds another one may be made. Always allows when limiting is off.
     */
    chargeReservation(
      request: FastifyRequest,
    ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
    /**
     * Counts one sign-in link asked for `email` against the address's hourly budget
     * (RATE_LIMIT_SIGN_IN_PER_HOUR) and the email's (RATE_LIMIT_SIGN_IN_PER_EMAIL_PER_HOUR): one
     * address cannot flood mailboxes, nor many addresses one mailbox. The email is counted by a
     * hash, never stored in the counters. Always allows when limiting is off.
     */
    chargeSignIn(
      request: FastifyRequest,
      email: string,
    ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
    /**
     * Counts one alert asked for `email`, as chargeSignIn does for sign-in links, in a tier of its
     * own (RATE_LIMIT_ALERTS_PER_HOUR, RATE_LIMIT_ALERTS_PER_EMAIL_PER_HOUR).
     */
    chargeAlert(
      request: FastifyRequest,
      email: string,
    ): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  }
}

// A hung Redis is detected after this many slow or failed calls in a row, then left alone for
// BREAKER_OPEN_MS before one background probe asks again. Redis answers in well under a
// millisecond; a call that takes RATE_LIMIT_REDIS_TIMEOUT_MS (250 ms by default) counts as not
// answering, and its request passes.
export const BREAKER_THRESHOLD = 5;
const BREAKER_OPEN_MS = 2000;

/**
 * The bucket of a request: its client when it presented a valid token, else its address — in the
 * pages tier for the site's pages (a GET or HEAD outside /api/), in the API's otherwise.
 */
function bucket(request: FastifyRequest): string {
  const identity = request.identity;
  if (identity?.kind === 'client') return `client:${identity.clientId}`;
  if (identity?.kind === 'apiKey') return `key:${identity.keyId}`;
  return isPageRequest(request) ? `page-${addressBucket(request)}` : addressBucket(request);
}

/**
 * A visit of the site: a search engine walking the sitemap, or many people behind one address,
 * read tens of pages a second, far more than the API's anonymous budget (RATE_LIMIT_PAGES).
 */
function isPageRequest(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && !request.url.startsWith('/api/');
}

/** The anonymous bucket of a request's address. IPv6 clients usually hold a whole /64: one address. */
export function addressBucket(request: FastifyRequest): string {
  return `ip:${normalizeIP(request.ip, IPV6_BUCKET_PREFIX)}`;
}

/** A Redis connection for the counters, and the breaker that notices when it stops answering. */
async function connectRedis(
  app: FastifyInstance,
  url: string,
  timeoutMs: number,
): Promise<{ redis: Redis; breaker: CircuitBreaker }> {
  let reported: 'up' | 'down' | undefined;
  // Loaded only with REDIS_URL.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    // Fail fast while Redis is away rather than queueing: the limiter then lets requests pass.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    commandTimeout: Math.max(500, 2 * timeoutMs),
    retryStrategy: (attempt) => Math.min(attempt * 250, 2000),
  });
  const breaker = new CircuitBreaker('the Redis rate-limit store', {
    threshold: BREAKER_THRESHOLD,
    openMs: BREAKER_OPEN_MS,
    timeoutMs,
    onChange: (state) =>
      state === 'open'
        ? app.log.warn('rate limiting: Redis store not answering; requests are not limited until it answers again')
        : app.log.info('rate limiting: Redis store answering again'),
  });
  redis.on('ready', () => {
    if (reported !== 'up') app.log.info('rate limiting: Redis store connected');
    reported = 'up';
    // A fresh connection answered: no need to wait for the breaker's next probe.
    breaker.reset();
  });
  redis.on('error', (err) => {
    if (reported !== 'down')
      app.log.warn(
        { err: err.message },
        'rate limiting: Redis store unreachable; requests are not limited until it is back',
      );
    reported = 'down';
  });
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  return { redis, breaker };
}

type Settings = Config['rateLimit'];

/** Per-route budgets, set before the plugin reads each route's configuration. */
function setRouteBudgets(app: FastifyInstance, settings: Settings): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    if (route.url === REGISTER_PATH) {
      route.config = {
        ...route.config,
        rateLimit: { max: settings.registerPerHour, timeWindow: HOUR_MS },
      } as RouteOptions['config'];
    } else if (route.url === TOKEN_PATH) {
      route.config = {
        ...route.config,
        rateLimit: { max: settings.token, timeWindow: settings.windowMs },
      } as RouteOptions['config'];
    }
  });
}

interface LimitError {
  statusCode: number;
  code: string;
  /** The budget spent was an address's (the anonymous tier), not a client's or an API key's. */
  anonymous: boolean;
}

/** Whether an error is a spent budget of the anonymous tier: the caller may be told of a higher one. */
export function isAnonymousLimit(err: unknown): boolean {
  const e = err as Partial<LimitError> | null;
  return e?.code === RATE_LIMITED && e.anonymous === true;
}

/** The 429 error of a spent budget, saying whose budget, how large, and when to retry. */
function limitReachedError(settings: Settings) {
  return (request: FastifyRequest, max: number, after: string, statusCode: number) => {
    const key = bucket(request);
    const who = key.startsWith('client:') ? 'this client' : key.startsWith('key:') ? 'this API key' : 'this address';
    const per = request.routeOptions.url === REGISTER_PATH ? 'hour' : `${settings.windowMs / 1000} s`;
    const err = new Error(`Rate limit reached for ${who}: ${max} requests per ${per}. Retry in ${after}.`) as Error &
      LimitError;
    err.statusCode = statusCode;
    err.code = RATE_LIMITED;
    err.anonymous = key.startsWith('ip:');
    return err;
  };
}

/** chargeRateLimit and chargeReservation: budgets spent by work the route hook does not see. */
function decorateCharges(
  app: FastifyInstance,
  settings: Settings,
  limitReached: ReturnType<typeof limitReachedError>,
): void {
  const limiter = app.createRateLimit();
  app.decorate('chargeRateLimit', async (request: FastifyRequest, reply: FastifyReply, units = 1) => {
    let verdict: Awaited<ReturnType<typeof limiter>> | undefined;
    for (let i = 0; i < units; i++) {
      verdict = await limiter(request);
      if (verdict.isAllowed || verdict.isExceeded) break;
    }
    if (!verdict || verdict.isAllowed) return;
    reply.header('ratelimit-limit', verdict.max);
    reply.header('ratelimit-remaining', verdict.remaining);
    reply.header('ratelimit-reset', verdict.ttlInSeconds);
    if (!verdict.isExceeded) return;
    reply.header('retry-after', verdict.ttlInSeconds);
    throw limitReached(request, verdict.max, `${verdict.ttlInSeconds} seconds`, 429);
  });

  const reservationLimiter = app.createRateLimit({
    max: settings.reservationsPerHour,
    timeWindow: HOUR_MS,
    keyGenerator: (request) => `reservations:${addressBucket(request)}`,
  });
  app.decorate(
    'chargeSignIn',
    perAddressAndEmail(app, 'sign-in', settings.signInPerHour, settings.signInPerEmailPerHour),
  );
  app.decorate('chargeAlert', perAddressAndEmail(app, 'alert', settings.alertsPerHour, settings.alertsPerEmailPerHour));
  app.decorate('chargeReservation', async (request: FastifyRequest) => {
    const verdict = await reservationLimiter(request);
    return verdict.isAllowed || !verdict.isExceeded
      ? { allowed: true as const }
      : { allowed: false as const, retryAfterSeconds: verdict.ttlInSeconds };
  });
}

/**
 * An hourly budget per address and one per email (counted by its hash, never stored in the
 * counters), for what sends mail to an address someone typed: one address cannot flood mailboxes,
 * nor many addresses one mailbox. `tier` keeps each budget's counters apart.
 */
function perAddressAndEmail(app: FastifyInstance, tier: string, perAddress: number, perEmail: number) {
  const emailKeys = new WeakMap<FastifyRequest, string>();
  const byAddress = app.createRateLimit({
    max: perAddress,
    timeWindow: HOUR_MS,
    keyGenerator: (request) => `${tier}:${addressBucket(request)}`,
  });
  const byEmail = app.createRateLimit({
    max: perEmail,
    timeWindow: HOUR_MS,
    keyGenerator: (request) => `${tier}-email:${emailKeys.get(request)}`,
  });
  return async (request: FastifyRequest, email: string) => {
    const address = await byAddress(request);
    if (!address.isAllowed && address.isExceeded)
      return { allowed: false as const, retryAfterSeconds: address.ttlInSeconds };
    emailKeys.set(request, createHash('sha256').update(email).digest('base64url'));
    const mailbox = await byEmail(request);
    if (!mailbox.isAllowed && mailbox.isExceeded)
      return { allowed: false as const, retryAfterSeconds: mailbox.ttlInSeconds };
    return { allowed: true as const };
  };
}

/**
 * Rate-limit tiers (spec §5, §8): anonymous callers per IP address, callers with a valid access
 * token per client_id with a higher budget, and tighter per-IP budgets on registration and
 * token requests. Counters live in memory, or in Redis with REDIS_URL so that every instance
 * shares them. If Redis stops answering, requests are let through (fail open) and the outage
 * shows in /api/health until it answers again.
 */
export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
  const settings = config.rateLimit;
  if (!settings.enabled) {
    app.decorate('rateLimitStatus', () => undefined);
    app.decorate('chargeRateLimit', async () => {});
    app.decorate('chargeReservation', async () => ({ allowed: true as const }));
    app.decorate('chargeSignIn', async () => ({ allowed: true as const }));
    app.decorate('chargeAlert', async () => ({ allowed: true as const }));
    return;
  }

  const { redis, breaker } = settings.redisUrl
    ? await connectRedis(app, settings.redisUrl, settings.redisTimeoutMs)
    : {};
  app.decorate('rateLimitStatus', () => ({
    store: redis ? 'redis' : 'memory',
    status: !redis || (redis.status === 'ready' && breaker?.state !== 'open') ? 'up' : 'down',
  }));

  setRouteBudgets(app, settings);
  const limitReached = limitReachedError(settings);

  await app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: settings.windowMs,
    keyGenerator: bucket,
    max: (_request, key) =>
      key.startsWith('client:')
        ? settings.authenticated
        : key.startsWith('key:')
          ? settings.admin
          : key.startsWith('page-')
            ? settings.pages
            : settings.anonymous,
    allowList: (request) => request.method === 'OPTIONS',
    // RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (IETF draft) and Retry-After.
    enableDraftSpec: true,
    skipOnError: true,
    nameSpace: 'stages-rate-limit:',
    ...(redis && breaker ? { store: guardedRedisStore(redis, 'stages-rate-limit:', breaker) } : {}),
    errorResponseBuilder: (request, context) => limitReached(request, context.max, context.after, context.statusCode),
  });

  decorateCharges(app, settings, limitReached);
}
