import type { FastifyInstance } from 'fastify';
import { expireHolds } from './end-hold.js';
import { HOLD_EXPIRY_JOB } from './policy.js';

/**
 * Holds give their places back by themselves: each hold queues a job due at its expiry (by the
 * service's clock) in the jobs table, which any instance's worker runs once. The job ends every
 * hold then past its time, so one job late or lost is covered by the next; the change reaches the
 * read models and the change stream like any catalogue write.
 */
export function registerHoldExpiry(app: FastifyInstance): void {
  app.jobs.handle(HOLD_EXPIRY_JOB, async () => {
    const ended = await expireHolds(app.database.db, app.clock.now());
    if (ended > 0) await app.catalogue.refresh();
  });
}
