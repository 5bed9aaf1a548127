import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Tx } from '../../db/write.js';
import type { Actor } from '../../history/actor.js';
import { type Change, centreChanges, sessionChanges } from '../../history/changes.js';
import { recordChanges } from '../../history/record.js';
import type { WriteScope } from '../repository/scope.js';
import {
  type CentreRow,
  centreValues,
  type SessionRow,
  sameCentre,
  sameSession,
  sessionValues,
} from '../repository/views.js';
import { diffAgainstStored, rowsById } from './diff.js';
import { prepare } from './prepare.js';
import { CHUNK, type ImportRecord, type ImportResult } from './records.js';

/** `set col = excluded.col` for each column, and a fresh updated_at. */
function excludedSet(table: typeof centres | typeof stageSessions, keys: string[]) {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  const columns = table as unknown as Record<string, { name: string }>;
  for (const key of keys) {
    const column = columns[key];
    if (column) set[key] = sql.raw(`excluded."${column.name}"`);
  }
  return set;
}

/** Inserts the rows, or updates those whose id is stored, a chunk at a time. */
async function upsert<T extends typeof centres | typeof stageSessions>(
  tx: Tx,
  table: T,
  rows: (typeof table.$inferInsert)[],
): Promise<void> {
  const set = excludedSet(
    table,
    Object.keys(rows[0] ?? {}).filter((k) => k !== 'id'),
  );
  for (let i = 0; i < rows.length; i += CHUNK) {
    if (i > 0) await nextTurn(); // the event loop's turn between chunks: see inChunks
    await tx
      .insert(table as typeof centres)
      .values(rows.slice(i, i + CHUNK) as (typeof centres.$inferInsert)[])
      .onConflictDoUpdate({ target: table.id, set });
  }
}

/** Validates a batch and, unless `dryRun`, writes it in one transaction. */
export async function importBatch(
  db: Db,
  records: readonly ImportRecord[],
  scope: WriteScope,
  options: {
    dryRun: boolean;
    clock: Clock;
    actor: Actor;
    /** Runs first in the write's transaction (not on a dry run); what it throws rolls the write back. */
    first?: (tx: Tx) => Promise<void>;
  },
): Promise<ImportResult> {
  const prepared = await prepare(db, records, scope, options.clock);
  const run = async (tx: Tx | Db): Promise<ImportResult> => {
    if (!options.dryRun && options.first) await options.first(tx as Tx);
    const storedCentres = await rowsById<CentreRow>(
      tx,
      centres,
      prepared.centres.map((c) => c.id),
      !options.dryRun,
    );
    const centrePlan = diffAgainstStored(prepared.centres, storedCentres, centreValues, sameCentre);
    const storedSessions = await rowsById<SessionRow>(
      tx,
      stageSessions,
      prepared.sessions.map((s) => s.id),
      !options.dryRun,
    );
    const sessionPlan = diffAgainstStored(
      prepared.sessions,
      storedSessions,
      // Each figure is set against the bookings made here that its session holds now.
      (input, current) => sessionValues(input, current?.heldHere),
      sameSession,
    );
    const result = { dryRun: options.dryRun, centres: centrePlan.counts, sessions: sessionPlan.counts };
    if (options.dryRun) return result;
    await upsert(tx as Tx, centres, centrePlan.writes);
    await upsert(tx as Tx, stageSessions, sessionPlan.writes);
    // One row per changed field of the records written (unchanged records were not written).
    const changes: Change[] = [];
    for (const w of centrePlan.writes) changes.push(...centreChanges(w.id, storedCentres.get(w.id), w));
    for (const w of sessionPlan.writes) changes.push(...sessionChanges(w.id, storedSessions.get(w.id), w));
    await recordChanges(tx as Tx, options.actor, changes);
    return result;
  };
  return options.dryRun ? run(db) : catalogueWrite(db, run);
}
