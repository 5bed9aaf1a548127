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
      ...(options.delayMs ? { runAt: afterMs(options.delayMs) } : {}),
    })
    .returning({ id: jobs.id });
  if (!row) throw new Error('the job was not stored');
  return row.id;
}

/**
 * The database's now() plus `ms`. Every time a job carries is the database's, never an instance's
 * clock: instances on one database then agree on what is due and whose lease has run out.
 */
export function afterMs(ms: number): SQL {
  return sql`now() + make_interval(secs => ${ms / 1000}::double precision)`;
}
