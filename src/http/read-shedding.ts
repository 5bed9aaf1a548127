import type { FastifyInstance } from 'fastify';
import { problem, sendProblem } from './problem.js';

/** How often the event loop's lag is sampled: a timer that should fire every SAMPLE_MS. */
const SAMPLE_MS = 20;

/** What a shed read is told: come back in a second (Retry-After), nothing is wrong with the request. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The event loop's lag: how late a timer due every SAMPLE_MS fired, the last time it did. Work
 * that holds the loop (a burst of reads, a catch-up applying changes, the garbage collector) shows
 * as lag, and so does a machine too busy to give the process its turn.
 */
export function eventLoopLag(): { lagMs: () => number; stop: () => void } {
  let last = performance.now();
  let lag = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    lag = Math.max(0, now - last - SAMPLE_MS);
    last = now;
  }, SAMPLE_MS);
  timer.unref();
  return { lagMs: () => lag, stop: () => clearInterval(timer) };
}

/** The public search's reads (`/api/stages` and a session by id), not its change stream. */
function isSheddableRead(method: string, url: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (!url.startsWith('/api/stages')) return false;
  const rest = url.slice('/api/stages'.length);
  if (rest !== '' && rest[0] !== '?' && rest[0] !== '/') return false;
  return !rest.startsWith('/events');
}

/**
 * Admission of reads (READ_SHED_LAG_MS): while the event loop lags past the bound, the public
 * search's reads are answered at once with 503 and Retry-After instead of being searched, so that
 * the instance's turns go to what is already under way — writes, their acknowledgement, catch-ups,
 * the change stream. Writes, health, the admin API and pages are never shed. Off when no bound is set.
 * `lagMs` is injectable: tests give a lag of their choosing.
 */
export function registerReadShedding(
  app: FastifyInstance,
  boundMs: number | undefined,
  lagMs: (() => number) | undefined = undefined,
): void {
  if (boundMs === undefined) return;
  let measure = lagMs;
  if (measure === undefined) {
    const lag = eventLoopLag();
    app.addHook('onClose', async () => lag.stop());
    measure = lag.lagMs;
  }
  const current = measure;
  app.addHook('onRequest', async (request, reply) => {
    if (!isSheddableRead(request.method, request.url) || current() <= boundMs) return;
    reply.header('retry-after', RETRY_AFTER_SECONDS);
    return sendProblem(
      reply,
      problem(503, 'overloaded', 'This instance is busy answering other requests; retry in a second.'),
    );
  });
}
