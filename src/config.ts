import { z } from 'zod';

const booleanFlag = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: `${name} must be one of true, false, 1, 0, yes, no, on, off`,
    })
    .transform((v) => v === 'true' || v === '1' || v === 'yes' || v === 'on');

const positiveInt = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(1, `${name} must be at least 1`);

/** A timeout: at most an hour (Node's timers take nothing above 2^31 - 1 ms, and read it as 1 ms). */
const milliseconds = (name: string) => positiveInt(name).max(3_600_000, `${name} must be at most 3600000 (an hour)`);

/** An absolute http(s) URL holding a placeholder, e.g. https://www.example.fr/stage/{id}. */
const urlTemplate = (name: string, placeholder: string) =>
  z
    .string()
    .refine((v) => v.includes(placeholder) && URL.canParse(v.replace(placeholder, 'x')) && /^https?:\/\//.test(v), {
      error: `${name} must be an absolute http(s) URL containing ${placeholder}`,
    })
    .optional();

/** A comma-separated list of browser origins, or `*`. */
const originList = (name: string) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((o) => o.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z.union([z.literal('*'), z.url({ protocol: /^[a-z][a-z0-9+.-]*$/ }).transform((u) => new URL(u).origin)], {
          error: `${name} must be a comma-separated list of origins (https://app.example) or *`,
        }),
      ),
    )
    .optional();

const EnvSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_BASE_URL: z
      .url({ protocol: /^https?$/, error: 'PUBLIC_BASE_URL must be an absolute http(s) URL' })
      .optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
      .optional(),
    DEMO_CATALOGUE: booleanFlag('DEMO_CATALOGUE').default(true),
    PLATFORM_NAME: z.string().min(1).max(100).default('Stages Récup Points'),
    CONTENT_SIGNAL: z
      .string()
      .regex(/^\s*(?:search|ai-input|ai-train)=(?:yes|no)(?:\s*,\s*(?:search|ai-input|ai-train)=(?:yes|no))*\s*$/, {
        error: 'CONTENT_SIGNAL must be a comma-separated list of search, ai-input, ai-train each =yes or =no',
      })
      .default('search=yes, ai-input=yes, ai-train=no'),
    SIGNING_KEY: z
      .string()
      .refine((v) => v.trimStart().startsWith('{') || v.includes('-----BEGIN PRIVATE KEY-----'), {
        error: 'SIGNING_KEY must be an EC P-256 private key: a PKCS#8 PEM (-----BEGIN PRIVATE KEY-----) or a JWK',
      })
      .optional(),
    LOG_SAMPLE_READS: z.coerce
      .number({ error: 'LOG_SAMPLE_READS must be a number from 0 to 1' })
      .min(0, 'LOG_SAMPLE_READS must be a number from 0 to 1')
      .max(1, 'LOG_SAMPLE_READS must be a number from 0 to 1')
      .default(0.1),
    METRICS_PORT: z.coerce
      .number({ error: 'METRICS_PORT must be a TCP port number' })
      .int('METRICS_PORT must be a TCP port number')
      .min(1, 'METRICS_PORT must be between 1 and 65535')
      .max(65535, 'METRICS_PORT must be between 1 and 65535')
      .optional(),
    METRICS_HOST: z.string().min(1).optional(),
    SHUTDOWN_GRACE_SECONDS: z.coerce
      .number({ error: 'SHUTDOWN_GRACE_SECONDS must be a number of seconds' })
      .min(0, 'SHUTDOWN_GRACE_SECONDS must be 0 or more')
      .max(300, 'SHUTDOWN_GRACE_SECONDS must be at most 300')
      .default(1),
    SHUTDOWN_TIMEOUT_SECONDS: z.coerce
      .number({ error: 'SHUTDOWN_TIMEOUT_SECONDS must be a number of seconds' })
      .min(1, 'SHUTDOWN_TIMEOUT_SECONDS must be at least 1')
      .max(3600, 'SHUTDOWN_TIMEOUT_SECONDS must be at most 3600')
      .default(30),
    HEAP_GROWING_PERCENT: z.coerce
      .number({ error: 'HEAP_GROWING_PERCENT must be a whole number from 0 to 300' })
      .int('HEAP_GROWING_PERCENT must be a whole number from 0 to 300')
      .min(0, 'HEAP_GROWING_PERCENT must be a whole number from 0 to 300')
      .max(300, 'HEAP_GROWING_PERCENT must be a whole number from 0 to 300')
      .default(50),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    RATE_LIMIT: z.enum(['on', 'off'], { error: 'RATE_LIMIT must be on or off' }).default('on'),
    MCP_ANSWER_CACHE: z.enum(['on', 'off'], { error: 'MCP_ANSWER_CACHE must be on or off' }).default('on'),
    MCP_LISTEN_MAX: positiveInt('MCP_LISTEN_MAX').default(1000),
    MCP_LISTEN_MAX_RESOURCES: positiveInt('MCP_LISTEN_MAX_RESOURCES')
      .max(1000, 'MCP_LISTEN_MAX_RESOURCES must be at most 1000')
      .default(20),
    RATE_LIMIT_WINDOW_SECONDS: positiveInt('RATE_LIMIT_WINDOW_SECONDS').default(60),
    RATE_LIMIT_ANONYMOUS: positiveInt('RATE_LIMIT_ANONYMOUS').default(60),
    RATE_LIMIT_PAGES: positiveInt('RATE_LIMIT_PAGES').default(1800),
    RATE_LIMIT_AUTHENTICATED: positiveInt('RATE_LIMIT_AUTHENTICATED').default(600),
    RATE_LIMIT_TOKEN: positiveInt('RATE_LIMIT_TOKEN').default(20),
    RATE_LIMIT_ADMIN: positiveInt('RATE_LIMIT_ADMIN').default(1200),
    IMPORT_MAX_MB: positiveInt('IMPORT_MAX_MB').default(32),
    IMPORT_MAX_RECORDS: positiveInt('IMPORT_MAX_RECORDS')
      .max(1_000_000, 'IMPORT_MAX_RECORDS must be at most 1000000')
      .default(50_000),
    EVENTS_HEARTBEAT_SECONDS: positiveInt('EVENTS_HEARTBEAT_SECONDS').default(15),
    EVENTS_MAX_PER_ADDRESS: positiveInt('EVENTS_MAX_PER_ADDRESS').default(5),
    EVENTS_MAX_STREAMS: positiveInt('EVENTS_MAX_STREAMS').default(2000),
    REQUEST_TIMEOUT_MS: milliseconds('REQUEST_TIMEOUT_MS').default(30_000),
    HEADERS_TIMEOUT_MS: milliseconds('HEADERS_TIMEOUT_MS').optional(),
    KEEP_ALIVE_TIMEOUT_MS: milliseconds('KEEP_ALIVE_TIMEOUT_MS').default(72_000),
    IDLE_TIMEOUT_MS: milliseconds('IDLE_TIMEOUT_MS').default(120_000),
    MAX_CONNECTIONS: positiveInt('MAX_CONNECTIONS').default(4096),
    EVENTS_STREAM_MAX_BUFFER_KB: positiveInt('EVENTS_STREAM_MAX_BUFFER_KB')
      .min(16, 'EVENTS_STREAM_MAX_BUFFER_KB must be at least 16')
      .max(65_536, 'EVENTS_STREAM_MAX_BUFFER_KB must be at most 65536')
      .default(1024),
    EVENTS_TOTAL_BUFFER_MB: positiveInt('EVENTS_TOTAL_BUFFER_MB')
      .max(4096, 'EVENTS_TOTAL_BUFFER_MB must be at most 4096')
      .default(64),
    RATE_LIMIT_REGISTER_PER_HOUR: positiveInt('RATE_LIMIT_REGISTER_PER_HOUR').default(5),
    RATE_LIMIT_RESERVATIONS_PER_HOUR: positiveInt('RATE_LIMIT_RESERVATIONS_PER_HOUR').default(5),
    RATE_LIMIT_SIGN_IN_PER_HOUR: positiveInt('RATE_LIMIT_SIGN_IN_PER_HOUR').default(20),
    RATE_LIMIT_SIGN_IN_PER_EMAIL_PER_HOUR: positiveInt('RATE_LIMIT_SIGN_IN_PER_EMAIL_PER_HOUR').default(5),
    RATE_LIMIT_ALERTS_PER_HOUR: positiveInt('RATE_LIMIT_ALERTS_PER_HOUR').default(20),
    RATE_LIMIT_ALERTS_PER_EMAIL_PER_HOUR: positiveInt('RATE_LIMIT_ALERTS_PER_EMAIL_PER_HOUR').default(5),
    SESSION_SECRETS: z
      .string()
      .optional()
      .transform((v) =>
        v
          ?.split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      )
      .refine((list) => list === undefined || (list.length > 0 && list.every((s) => s.length >= 32)), {
        message: 'SESSION_SECRETS must be a comma-separated list of secrets of at least 32 characters each',
      }),
    RATE_LIMIT_REDIS_TIMEOUT_MS: positiveInt('RATE_LIMIT_REDIS_TIMEOUT_MS')
      .max(10_000, 'RATE_LIMIT_REDIS_TIMEOUT_MS must be at most 10000')
      .default(250),
    SMTP_URL: z
      .string()
      .regex(
        /^smtps?:\/\/[^\s]+$/,
        'SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:pass@smtp.example.fr',
      )
      .optional(),
    MAIL_FROM: z.string().min(3).max(200).optional(),
    WEBHOOK_ALLOW_PRIVATE: booleanFlag('WEBHOOK_ALLOW_PRIVATE').default(false),
    CIMD_ALLOW_HTTP_LOOPBACK: booleanFlag('CIMD_ALLOW_HTTP_LOOPBACK').default(false),
    CIMD_FETCH_TIMEOUT_MS: positiveInt('CIMD_FETCH_TIMEOUT_MS')
      .max(30_000, 'CIMD_FETCH_TIMEOUT_MS must be at most 30000')
      .default(5000),
    CIMD_CACHE_MAX_SECONDS: positiveInt('CIMD_CACHE_MAX_SECONDS')
      .min(60, 'CIMD_CACHE_MAX_SECONDS must be at least 60')
      .max(86_400, 'CIMD_CACHE_MAX_SECONDS must be at most 86400 (a day)')
      .default(3600),
    WEBHOOK_ALERT_EMAIL: z.email({ error: 'WEBHOOK_ALERT_EMAIL must be an email address' }).optional(),
    JOBS_POLL_MS: z.coerce
      .number({ error: 'JOBS_POLL_MS must be a number of milliseconds' })
      .int('JOBS_POLL_MS must be a whole number of milliseconds')
      .min(0, 'JOBS_POLL_MS must be 0 (no worker on this instance) or from 50 to 60000')
      .max(60_000, 'JOBS_POLL_MS must be at most 60000')
      .refine((v) => v === 0 || v >= 50, 'JOBS_POLL_MS must be 0 (no worker on this instance) or from 50 to 60000')
      .default(1000),
    JOBS_MAX_ATTEMPTS: positiveInt('JOBS_MAX_ATTEMPTS').max(50, 'JOBS_MAX_ATTEMPTS must be at most 50').default(12),
    JOBS_FAILED_RETENTION_DAYS: positiveInt('JOBS_FAILED_RETENTION_DAYS')
      .max(90, 'JOBS_FAILED_RETENTION_DAYS must be at most 90')
      .default(7),
    RESERVATION_PAYMENT_NOTE: z.string().min(1).max(1000).optional(),
    REFRESH_TOKEN_TTL_DAYS: positiveInt('REFRESH_TOKEN_TTL_DAYS')
      .max(365, 'REFRESH_TOKEN_TTL_DAYS must be at most 365')
      .default(30),
    CHANGE_CUTOFF_DAYS: positiveInt('CHANGE_CUTOFF_DAYS').max(60, 'CHANGE_CUTOFF_DAYS must be at most 60').default(7),
    HOLD_TTL_SECONDS: positiveInt('HOLD_TTL_SECONDS')
      .min(60, 'HOLD_TTL_SECONDS must be at least 60')
      .max(3600, 'HOLD_TTL_SECONDS must be at most 3600 (an hour)')
      .default(900),
    TRUST_PROXY: z
      .string()
      .transform((v, ctx) => {
        if (/^\d+$/.test(v)) return Number(v);
        const list = v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        if (list.length && list.every((s) => /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s))) return list;
        ctx.addIssue({
          code: 'custom',
          message: 'TRUST_PROXY must be a number of proxy hops or a comma-separated list of addresses/CIDR ranges',
        });
        return z.NEVER;
      })
      .optional(),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'REDIS_URL must be a redis:// or rediss:// URL')
      .optional(),
    MCP_ALLOWED_ORIGINS: originList('MCP_ALLOWED_ORIGINS'),
    OAUTH_REGISTRATION_ORIGINS: originList('OAUTH_REGISTRATION_ORIGINS'),
    SITE: z.enum(['on', 'off'], { error: 'SITE must be on or off' }).default('on'),
    BOOKING_URL_TEMPLATE: urlTemplate('BOOKING_URL_TEMPLATE', '{id}'),
    CENTRE_URL_TEMPLATE: urlTemplate('CENTRE_URL_TEMPLATE', '{slug}'),
  })
  .superRefine((env, ctx) => {
    // Without the site, bookingUrl and url must lead to the operator's own pages, never to a 404.
    if (env.SITE === 'off') {
      for (const name of ['BOOKING_URL_TEMPLATE', 'CENTRE_URL_TEMPLATE'] as const) {
        if (!env[name]) ctx.addIssue({ code: 'custom', path: [name], message: `${name} is required when SITE=off` });
      }
    }
  })
  // Node refuses a headers timeout longer than the whole request's.
  .refine((env) => (env.HEADERS_TIMEOUT_MS ?? 0) <= env.REQUEST_TIMEOUT_MS, {
    path: ['HEADERS_TIMEOUT_MS'],
    error: 'HEADERS_TIMEOUT_MS must be at most REQUEST_TIMEOUT_MS: the headers are part of the request',
  })
  .refine((env) => env.METRICS_PORT === undefined || env.METRICS_PORT !== env.PORT, {
    path: ['METRICS_PORT'],
    error: 'METRICS_PORT must differ from PORT: metrics are never served on the public port',
  })
  .transform((env) => {
    const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, '');
    return {
      port: env.PORT,
      host: env.HOST,
      publicBaseUrl,
      database: env.DATABASE_URL
        ? ({ kind: 'postgres', url: env.DATABASE_URL } as const)
        : ({ kind: 'pglite', dataDir: env.DATA_DIR } as const),
      demoCatalogue: env.DEMO_CATALOGUE,
      platformName: env.PLATFORM_NAME,
      /**
       * What robots.txt says the pages may be used for (contentsignals.org): search, ai-input,
       * ai-train, each yes or no; with ai-train=no the named training crawlers are kept out.
       */
      contentSignal: Object.fromEntries(
        env.CONTENT_SIGNAL.split(',').map((part) => part.trim().split('=') as [string, string]),
      ) as Partial<Record<'search' | 'ai-input' | 'ai-train', 'yes' | 'no'>>,
      logLevel: env.LOG_LEVEL,
      /** Share of successful reads that get a request log line; errors and writes always do. */
      logSampleReads: env.LOG_SAMPLE_READS,
      rateLimit: {
        enabled: env.RATE_LIMIT === 'on',
        windowMs: env.RATE_LIMIT_WINDOW_SECONDS * 1000,
        anonymous: env.RATE_LIMIT_ANONYMOUS,
        /** The site's pages (GET and HEAD outside /api/) per address per window: a tier of their own. */
        pages: env.RATE_LIMIT_PAGES,
        authenticated: env.RATE_LIMIT_AUTHENTICATED,
        token: env.RATE_LIMIT_TOKEN,
        /** Requests per window for each operator or partner API key on /api/admin/*. */
        admin: env.RATE_LIMIT_ADMIN,
        registerPerHour: env.RATE_LIMIT_REGISTER_PER_HOUR,
        /** Reservations per address per hour on the site. */
        reservationsPerHour: env.RATE_LIMIT_RESERVATIONS_PER_HOUR,
        signInPerHour: env.RATE_LIMIT_SIGN_IN_PER_HOUR,
        signInPerEmailPerHour: env.RATE_LIMIT_SIGN_IN_PER_EMAIL_PER_HOUR,
        /** "Prévenez-moi" alerts asked per address, and per email, per hour (src/alerts/). */
        alertsPerHour: env.RATE_LIMIT_ALERTS_PER_HOUR,
        alertsPerEmailPerHour: env.RATE_LIMIT_ALERTS_PER_EMAIL_PER_HOUR,
        redisUrl: env.REDIS_URL,
        /** How long a Redis call may take before it counts as not answering (then requests pass). */
        redisTimeoutMs: env.RATE_LIMIT_REDIS_TIMEOUT_MS,
      },
      /** Which proxies to believe about the client address (X-Forwarded-For); none by default. */
      trustProxy: env.TRUST_PROXY,
      /** Browser origins allowed to call POST /api/mcp (DNS-rebinding protection); '*' allows any. */
      mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS ?? [new URL(publicBaseUrl).origin],
      /** The MCP fast path (src/mcp/fast-path.ts): successful read answers kept by content. */
      mcpAnswerCache: env.MCP_ANSWER_CACHE === 'on',
      /**
       * MCP subscriptions/listen (src/mcp/listen.ts): open listens per instance, resource URIs per
       * listen, and the keep-alive comment's period (the change stream's heartbeat).
       */
      mcpListen: {
        max: env.MCP_LISTEN_MAX,
        maxResources: env.MCP_LISTEN_MAX_RESOURCES,
        keepAliveMs: env.EVENTS_HEARTBEAT_SECONDS * 1000,
      },
      /**
       * Browser origins allowed to register OAuth clients (CORS and an Origin check); requests
       * without Origin (agents, servers) always may. Default: the MCP browser origins.
       */
      oauthRegistrationOrigins: env.OAUTH_REGISTRATION_ORIGINS ??
        env.MCP_ALLOWED_ORIGINS ?? [new URL(publicBaseUrl).origin],
      /** When set, signs access tokens instead of the keys kept in the database. */
      signingKey: env.SIGNING_KEY,
      /** GET /api/stages/events: heartbeat period, caps on open streams and on their unsent bytes. */
      events: {
        heartbeatMs: env.EVENTS_HEARTBEAT_SECONDS * 1000,
        maxPerAddress: env.EVENTS_MAX_PER_ADDRESS,
        maxStreams: env.EVENTS_MAX_STREAMS,
        maxStreamBytes: env.EVENTS_STREAM_MAX_BUFFER_KB * 1024,
        maxTotalBytes: env.EVENTS_TOTAL_BUFFER_MB * 1024 * 1024,
      },
      /** What a client may hold at the edge: time to send a request, idle time, connections (http/connections.ts). */
      edge: {
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
        headersTimeoutMs: env.HEADERS_TIMEOUT_MS ?? Math.min(10_000, env.REQUEST_TIMEOUT_MS),
        keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
        idleTimeoutMs: env.IDLE_TIMEOUT_MS,
        maxConnections: env.MAX_CONNECTIONS,
      },
      /** Largest body POST /api/admin/import accepts. */
      importMaxBytes: env.IMPORT_MAX_MB * 1024 * 1024,
      /** Most records one import takes (HTTP and command line); past it, refused before the rest is read. */
      importMaxRecords: env.IMPORT_MAX_RECORDS,
      /** Where every email goes out (none without SMTP_URL), through the outbox (src/mail/). */
      mail: {
        smtpUrl: env.SMTP_URL,
        mailFrom: env.MAIL_FROM ?? `${env.PLATFORM_NAME} <no-reply@${new URL(publicBaseUrl).hostname}>`,
      },
      /** The durable jobs' worker (src/jobs/): poll period (0: none on this instance), retries, retention. */
      jobs: {
        pollMs: env.JOBS_POLL_MS,
        maxAttempts: env.JOBS_MAX_ATTEMPTS,
        failedRetentionMs: env.JOBS_FAILED_RETENTION_DAYS * 86_400_000,
      },
      /**
       * Signed-in areas (src/accounts/): the secrets that sign the session cookie, the first signing
       * and every one verifying (rotation); undefined: one the service makes and keeps in its database.
       */
      accounts: { sessionSecrets: env.SESSION_SECRETS },
      /** Agent hosts' authorization-code grants: how long a refresh token lives unused (each use rotates it). */
      oauth: { refreshTokenTtlDays: env.REFRESH_TOKEN_TTL_DAYS },
      /**
       * Webhooks (src/webhooks/): allowPrivate lets subscriptions use http and private addresses
       * (tests, local receivers); alertEmail is told when an all-centre subscription is disabled.
       */
      webhooks: { allowPrivate: env.WEBHOOK_ALLOW_PRIVATE, alertEmail: env.WEBHOOK_ALERT_EMAIL },
      /**
       * Client ID Metadata Documents and the key sets of private_key_jwt clients (src/auth/cimd/):
       * allowHttpLoopback lets them be served over http from a loopback address (tests only);
       * how long a fetch may take; the longest a document or key set is reused.
       */
      clientDocuments: {
        allowHttpLoopback: env.CIMD_ALLOW_HTTP_LOOPBACK,
        fetchTimeoutMs: env.CIMD_FETCH_TIMEOUT_MS,
        cacheMaxSeconds: env.CIMD_CACHE_MAX_SECONDS,
      },
      /**
       * Reservations on the site: how people pay; until how many days before a course's start a
       * person may change its date from their area.
       */
      reservations: {
        changeCutoffDays: env.CHANGE_CUTOFF_DAYS,
        paymentNote:
          env.RESERVATION_PAYMENT_NOTE ??
          'Le paiement se fait auprès du centre, qui vous contacte pour confirmer votre place et vous indiquer comment régler (carte, virement ou chèque). Votre place est retenue dès maintenant.',
      },
      /** A place a claimed agent holds for its person (src/agent-holds/) is kept this long for them to book. */
      holds: { ttlSeconds: env.HOLD_TTL_SECONDS },
      /** Whether the service serves its own HTML pages (the site). */
      site: env.SITE === 'on',
      /** Where bookingUrl and centre url point when the operator has its own site. */
      urlTemplates: { booking: env.BOOKING_URL_TEMPLATE, centre: env.CENTRE_URL_TEMPLATE },
      /** Prometheus metrics on a listener of their own; off unless METRICS_PORT is set. */
      metrics:
        env.METRICS_PORT === undefined ? undefined : { port: env.METRICS_PORT, host: env.METRICS_HOST ?? env.HOST },
      /** Once started, how far V8's old generation may grow between full collections, in % of the live heap (core/heap-growth.ts). */
      heapGrowingPercent: env.HEAP_GROWING_PERCENT,
      /** SIGTERM/SIGINT: keep answering (health `draining`) for graceMs, then finish within timeoutMs. */
      shutdown: {
        graceMs: env.SHUTDOWN_GRACE_SECONDS * 1000,
        timeoutMs: env.SHUTDOWN_TIMEOUT_SECONDS * 1000,
      },
    };
  });

export type Config = z.output<typeof EnvSchema>;
export type DatabaseConfig = Config['database'];

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
}

/** Parses the environment once; a bad value throws a ConfigError naming each variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as shells and .env files often produce them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
