import type { FastifyInstance } from 'fastify';
import { sweepEvery } from '../jobs/sweep.js';
import { expireHolds } from './end-hold.js';
import { HOLD_EXPIRY_JOB } from './policy.js';

/** How often every instance also sweeps: holds past their time, and ended holds past their keeping. */
const SWEEP_EVERY_MS = 3_600_000;

/**
 * Holds give their places back by themselves: each hold queues a job due at its expiry (by the
 * service's clock) in the jobs table, which any instance's worker runs once. The job ends every
 * hold then past its time, so one job late or lost is covered by the next; the change reaches the
 * read models and the change stream like any catalogue write.
 */
export function registerHoldExpiry(app: FastifyInstance): void {
  const sweep = async () => {
    const ended = await expireHolds(app.database.db, app.clock.now());
    if (ended > 0) await app.catalogue.refresh();
  };
  app.jobs.handle(HOLD_EXPIRY_JOB, sweep);
  // Ended holds are deleted after their keeping even when no hold expires for a while (the jobs
  // above run only at some hold's expiry): every hour, on every instance (the deletes are idempotent).
  sweepEvery(app, SWEEP_EVERY_MS, sweep, 'holds: the hourly sweep failed');
}
