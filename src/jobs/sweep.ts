import type { FastifyInstance } from 'fastify';
import { errorSummary } from './errors.js';

/**
 * Runs `sweep` every `everyMs` on this instance until the app closes (the timer never holds the
 * process open). For deletes any instance may do at any time: they are idempotent, so several
 * instances sweeping the same database do no harm. A failure is logged (`failure`, and the error's
 * summary, never its message) and the next round tries again.
 */
export function sweepEvery(
  app: FastifyInstance,
  everyMs: number,
  sweep: (now: Date) => Promise<unknown>,
  failure: string,
): void {
  const timer = setInterval(() => {
    sweep(app.clock.now()).catch((err: unknown) => app.log.warn({ error: errorSummary(err) }, failure));
  }, everyMs);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}
