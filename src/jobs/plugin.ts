import type { FastifyInstance } from 'fastify';
import { registerJobMetrics } from './metrics.js';
import { JobWorker } from './worker.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** This instance's worker over the durable jobs table: features register their kinds' handlers on it. */
    jobs: JobWorker;
  }
}

/**
 * The durable jobs' worker: built with the app, polling once the app is ready (every JOBS_POLL_MS;
 * never with 0, where tests drive it with `drain()`), stopped before the app closes, after the
 * jobs in hand finish. Needs the metrics registry (http/) when metrics are on.
 */
export async function registerJobs(app: FastifyInstance): Promise<void> {
  const { pollMs, maxAttempts, failedRetentionMs } = app.config.jobs;
  const worker = new JobWorker({
    db: app.database.db,
    log: app.log.child({ component: 'jobs' }),
    pollMs,
    maxAttempts,
    failedRetentionMs,
    clock: app.clock,
  });
  app.decorate('jobs', worker);
  if (app.metrics) await registerJobMetrics(app.metrics, app.database.db, worker);
  app.addHook('onReady', async () => worker.start());
  // preClose: before the database (closed after the app) and the mail transport (onClose) go away.
  app.addHook('preClose', async () => worker.stop());
}
