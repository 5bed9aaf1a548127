import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { jobs } from '../db/schema.js';
import type { Tx } from '../db/write.js';

/** A job's payload: plain JSON, stored as jsonb. */
export type JobPayload = Record<string, unknown>;

export interface EnqueueOptions {
  /**
   * The payload holds a secret (a private or sign-in link): the row is deleted once the job is done,
   * like every done job, and its payload erased if the job fails for good.
   */
  secret?: boolean;
  /** Tries before the job is marked failed; the worker's default (JOBS_MAX_ATTEMPTS) otherwise. */
  maxAttempts?: number;
  /** Not before this many milliseconds from the transaction's commit time (a reminder, a hold's expiry). */
  delayMs?: number;
  /**
   * Jobs of one key run one after the other, in the order they were enqueued: a job is not
   * claimed while an older job of its key is pending (waiting, running or waiting for a retry);
   * once that one is done or failed for good, the next goes (src/jobs/store.ts).
   */
  orderingKey?: string;
  /**
   * Not before this instant of the service's clock (app.clock): a time fixed by the business (a
   * reminder two days before a course), compared by every worker with its own clock.
   */
  notBefore?: Date;
}

/**
 * Adds a job in the caller's transaction: it exists if and only if what caused it commits, and no
 * worker sees it before then. Returns its id. A worker of any instance runs it (src/jobs/worker.ts).
 */
export async function enqueue(
  tx: Tx | Db,
  kind: string,
  payload: JobPayload,
  options: EnqueueOptions = {},
): Promise<number> {
  const [row] = await tx
    .insert(jobs)
    .values({
      kind,
      payload,
      secret: options.secret ?? false,
      maxAttempts: options.maxAttempts ?? null,
      orderingKey: options.orderingKey ?? null,
      notBefore: options.notBefore ?? null,
      ...(options.delayMs ? { runAt: afterMs(options.delayMs) } : {}),
    })
    .returning({ id: jobs.id });
  if (!row) throw new Error('the job was not stored');
  return row.id;
}

/** Several jobs of one kind in one statement, in the caller's transaction; ids in the given order. */
export async function enqueueMany(
  tx: Tx | Db,
  kind: string,
  items: { payload: JobPayload; orderingKey?: string }[],
  options: Omit<EnqueueOptions, 'orderingKey' | 'delayMs'> = {},
): Promise<void> {
  // Bounded statements: a large import's events go in slices.
  for (let i = 0; i < items.length; i += 500) {
    await tx.insert(jobs).values(
      items.slice(i, i + 500).map((item) => ({
        kind,
        payload: item.payload,
        secret: options.secret ?? false,
        maxAttempts: options.maxAttempts ?? null,
        orderingKey: item.orderingKey ?? null,
      })),
    );
  }
}

/**
 * The database's now() plus `ms`. Every time a job carries is the database's, never an instance's
 * clock: instances on one database then agree on what is due and whose lease has run out.
 */
export function afterMs(ms: number): SQL {
  return sql`now() + make_interval(secs => ${ms / 1000}::double precision)`;
}
