import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/connect.js';
import { retryDelayMs } from './backoff.js';
import { errorSummary, PermanentJobError } from './errors.js';
import {
  type ClaimedJob,
  claimDueJobs,
  completeJob,
  failJob,
  hastenRetries,
  purgeFailedJobs,
  retryJob,
} from './store.js';

/** Runs one job; throwing means "try again later" (PermanentJobError: "never"). */
export type JobHandler = (payload: unknown, job: ClaimedJob) => Promise<void>;

/** Told of each try's outcome (the metrics' counters). */
export interface JobObserver {
  done(kind: string): void;
  failed(kind: string): void;
}

export interface WorkerOptions {
  db: Db;
  log: FastifyBaseLogger;
  /** Poll period; 0: this instance never runs jobs by itself (runDueJobs/drain still do). */
  pollMs: number;
  /** Tries of a job that does not say otherwise. */
  maxAttempts: number;
  /** How long failed jobs are kept for inspection. */
  failedRetentionMs: number;
  /** How long a claimed job is its worker's; past it, another worker may take it. */
  leaseMs?: number;
  batchSize?: number;
  random?: () => number;
  /** The service's clock, for jobs due at a business instant (`notBefore`); the system's otherwise. */
  clock?: { now(): Date };
}

/** A handler must finish well within this (mail: SMTP timeouts of 30 s at most, mail/transport.ts). */
export const LEASE_MS = 5 * 60_000;
const BATCH_SIZE = 10;
const PURGE_EVERY_MS = 3_600_000;

/**
 * One instance's worker over the shared jobs table: claims due jobs of the kinds it has handlers
 * for, runs each batch's jobs concurrently, and deletes each done job, releases a failed one for
 * a later try (exponential backoff with jitter) or marks it failed after its last try. Two
 * workers never hold one job at once (claimDueJobs); a job whose worker died runs again once its
 * lease ends, so a job runs at least once, and once when nothing crashes.
 */
export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly handlers = new Map<string, JobHandler>();
  /** Kinds whose waiting retries are not hastened by a success (each job has its own receiver). */
  private readonly ownRetries = new Set<string>();
  private readonly observers: JobObserver[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private wokenWhileTicking = false;
  private started = false;
  private stopped = false;
  private lastPurge = 0;
  /** Kinds whose last try here failed: their next success hastens the retries waiting. */
  private readonly failing = new Set<string>();

  constructor(private readonly options: WorkerOptions) {}

  /**
   * Registers the handler of a kind; each kind has one, on every instance that runs it.
   * `hastenOnRecovery: false`: a success does not make the kind's waiting retries due (webhooks:
   * one receiver coming back says nothing of the others).
   */
  handle(kind: string, handler: JobHandler, options: { hastenOnRecovery?: boolean } = {}): void {
    if (this.handlers.has(kind)) throw new Error(`job kind "${kind}" already has a handler`);
    this.handlers.set(kind, handler);
    if (options.hastenOnRecovery === false) this.ownRetries.add(kind);
  }

  get kinds(): string[] {
    return [...this.handlers.keys()];
  }

  observe(observer: JobObserver): void {
    this.observers.push(observer);
  }

  /** Claims one batch of due jobs and runs it; resolves with how many ran. */
  async runDueJobs(): Promise<number> {
    const { db, leaseMs = LEASE_MS, batchSize = BATCH_SIZE } = this.options;
    const now = this.options.clock?.now() ?? new Date();
    const claimed = await claimDueJobs(db, this.id, this.kinds, batchSize, leaseMs, now);
    await Promise.all(claimed.map((job) => this.run(job)));
    return claimed.length;
  }

  /** Runs due jobs until none is left (jobs waiting for a retry are not due); resolves with how many ran. */
  async drain(): Promise<number> {
    let total = 0;
    for (let ran = await this.runDueJobs(); ran > 0; ran = await this.runDueJobs()) total += ran;
    return total;
  }

  /** Starts polling (unless the poll period is 0). */
  start(): void {
    if (this.options.pollMs === 0 || this.started || this.stopped) return;
    this.started = true;
    this.schedule(0);
  }

  /** Looks for due jobs now rather than at the next poll: after this instance committed one. */
  wake(): void {
    if (!this.started || this.stopped) return;
    if (this.ticking) this.wokenWhileTicking = true;
    else this.schedule(0);
  }

  /** Stops polling and waits for the jobs in hand to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return;
    this.ticking = this.work();
    await this.ticking;
    this.ticking = undefined;
    if (this.stopped) return;
    this.schedule(this.wokenWhileTicking ? 0 : this.options.pollMs);
    this.wokenWhileTicking = false;
  }

  private async work(): Promise<void> {
    try {
      while (!this.stopped && (await this.runDueJobs()) > 0);
      if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
        this.lastPurge = Date.now();
        await purgeFailedJobs(this.options.db, this.options.failedRetentionMs);
      }
    } catch (err) {
      // The database is away: the next poll tries again. The class and code only (an error from
      // the driver can quote the statement's parameters).
      this.options.log.warn({ error: errorSummary(err) }, 'jobs: could not claim due jobs');
    }
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { db, log } = this.options;
    const max = job.maxAttempts ?? this.options.maxAttempts;
    try {
      // Claimed once more than it may run: its last try's worker died before saying how it went.
      if (job.attempts > max) {
        for (const o of this.observers) o.failed(job.kind);
        return await this.giveUp(job, 'LeaseExpired');
      }
      try {
        await (this.handlers.get(job.kind) as JobHandler)(job.payload, job);
      } catch (err) {
        const error = errorSummary(err);
        this.failing.add(job.kind);
        for (const o of this.observers) o.failed(job.kind);
        if (err instanceof PermanentJobError || job.attempts >= max) return await this.giveUp(job, error);
        const delayMs = retryDelayMs(job.attempts, this.options.random);
        log.warn(
          { job: job.id, kind: job.kind, attempt: job.attempts, error, retryInSeconds: Math.round(delayMs / 1000) },
          'job failed; will retry',
        );
        return await retryJob(db, job.id, this.id, error, delayMs);
      }
      await completeJob(db, job.id, this.id);
      for (const o of this.observers) o.done(job.kind);
      // A retry that succeeded, or a success after failures here: what was failing works again.
      const wasFailing = this.failing.delete(job.kind);
      if ((job.attempts > 1 || wasFailing) && !this.ownRetries.has(job.kind)) await hastenRetries(db, job.kind);
    } catch (err) {
      // The outcome could not be written: the lease runs out and the job is tried again.
      log.warn({ job: job.id, kind: job.kind, error: errorSummary(err) }, 'jobs: could not record a job’s outcome');
    }
  }

  private async giveUp(job: ClaimedJob, error: string): Promise<void> {
    this.options.log.error({ job: job.id, kind: job.kind, attempts: job.attempts, error }, 'job failed for good');
    await failJob(this.options.db, job.id, this.id, error);
  }
}
