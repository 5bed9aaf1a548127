import type { Registry } from 'prom-client';
import type { Db } from '../db/connect.js';
import { type JobStats, jobStats } from './store.js';
import type { JobWorker } from './worker.js';

// One scrape reads three gauges; they share one query.
const STATS_FRESH_MS = 1000;

/**
 * The jobs' metrics: what waits and what failed (gauges read from the shared table at scrape
 * time, so every instance reports the same queue) and this instance's tries (counters).
 */
export async function registerJobMetrics(registry: Registry, db: Db, worker: JobWorker): Promise<void> {
  const { Counter, Gauge } = await import('prom-client');
  let stats: { at: number; rows: Promise<JobStats[]> } | undefined;
  const read = () => {
    if (!stats || Date.now() - stats.at > STATS_FRESH_MS)
      stats = { at: Date.now(), rows: jobStats(db).catch(() => []) };
    return stats.rows;
  };
  const fromStats = (name: string, help: string, state: JobStats['state'], value: (s: JobStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'],
      registers: [registry],
      async collect() {
        const rows = await read();
        // A kind whose jobs are all gone must drop to 0, not keep its last value.
        this.reset();
        for (const kind of worker.kinds) this.set({ kind }, 0);
        for (const s of rows) if (s.state === state) this.set({ kind: s.kind }, value(s));
      },
    });
  fromStats('jobs_pending', 'Jobs waiting to run or running (retries included), by kind.', 'pending', (s) => s.count);
  fromStats(
    'jobs_oldest_pending_age_seconds',
    'Age of the oldest pending job, by kind: a mail server or receiver that keeps failing shows here.',
    'pending',
    (s) => s.oldestAgeSeconds,
  );
  fromStats(
    'jobs_failed',
    'Jobs given up after their last try and kept for inspection, by kind.',
    'failed',
    (s) => s.count,
  );
  const done = new Counter({
    name: 'jobs_done_total',
    help: 'Jobs this instance ran to completion, by kind.',
    labelNames: ['kind'],
    registers: [registry],
  });
  const failures = new Counter({
    name: 'jobs_failures_total',
    help: "This instance's failed job tries (each retry counts), by kind.",
    labelNames: ['kind'],
    registers: [registry],
  });
  worker.observe({ done: (kind) => done.inc({ kind }), failed: (kind) => failures.inc({ kind }) });
}
