/**
 * "The database cannot be reached right now" — as opposed to a bug or a bad statement. Every door
 * answers it with 503 and Retry-After in its own format (problem+json, OAuth error, …) instead of a
 * 500: the caller did nothing wrong and should simply retry. Drizzle wraps driver errors, so the
 * whole `cause` chain is examined.
 */

/** Seconds a caller is asked to wait before retrying a request refused for a database outage. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

// SQLSTATE: connection exceptions (class 08), shutdowns and "cannot connect now" (57P01–57P03),
// too many connections (53300), and a database not accepting connections (55000 is broader, so
// its message is checked too).
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/, // pg: the server went away mid-query, or the connect timed out
  /timeout exceeded when trying to connect/, // pg.Pool: no connection within connectionTimeoutMillis
  /^Query read timeout/, // pg: no answer within query_timeout (a hung server)
  /is not queryable/, // pg: a client that already lost its connection
  /is not currently accepting connections/,
  /^PGlite is closed/, // embedded database closed under the app (shutdown)
  /^Cannot use a pool after calling end on the pool/, // the same for the PostgreSQL pool
  /database ping timed out/,
];

export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = err;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code.startsWith('08') && code.length === 5) return true;
      if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code)) return true;
    }
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(current instanceof Error ? current.message : '')))
      return true;
    // AggregateError (a connect that tried IPv4 and IPv6) carries its reasons in `errors`.
    const inner = (current as { errors?: unknown[] }).errors;
    if (Array.isArray(inner) && inner.some((e) => isDatabaseUnavailable(e))) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
