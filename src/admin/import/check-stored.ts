import { inArray } from 'drizzle-orm';
import type { FieldError } from '../../core/errors.js';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import type { WriteScope } from '../repository/scope.js';
import { type ImportRecord, inChunks, issueAt, type Prepared } from './records.js';

type UniqueColumn = 'slug' | 'agrementNumber' | 'courseNumber';

const UNIQUE_COLUMNS = {
  slug: { table: centres, column: centres.slug },
  agrementNumber: { table: centres, column: centres.agrementNumber },
  courseNumber: { table: stageSessions, column: stageSessions.courseNumber },
} as const;

/** Which stored record holds each of these values of a unique column. */
async function holders(db: Db, name: UniqueColumn, values: string[]): Promise<Map<string, string>> {
  const { table, column } = UNIQUE_COLUMNS[name];
  const rows = await inChunks(values, (chunk) =>
    db.select({ id: table.id, value: column }).from(table).where(inArray(column, chunk)),
  );
  return new Map(rows.map((row) => [row.value, row.id]));
}

/**
 * Checks the prepared records against the database: centres that sessions name, unique values
 * held by records not in the batch, and (partner key) sessions stored under another centre.
 */
export async function checkStored(
  db: Db,
  records: readonly ImportRecord[],
  prepared: Prepared,
  scope: WriteScope,
): Promise<FieldError[]> {
  const issues: FieldError[] = [];
  const byIndex = new Map(records.map((r) => [r.index, r]));
  const add = (index: number, field: string, reason: string, id: string) =>
    issues.push(issueAt(byIndex.get(index) as ImportRecord, field, reason, id));

  const batchCentres = new Set(prepared.centres.map((c) => c.id));
  const wanted = [...new Set(prepared.sessions.map((s) => s.input.centreId))].filter((id) => !batchCentres.has(id));
  const known = new Set(
    (
      await inChunks(wanted, (chunk) => db.select({ id: centres.id }).from(centres).where(inArray(centres.id, chunk)))
    ).map((row) => row.id),
  );
  for (const s of prepared.sessions) {
    if (!batchCentres.has(s.input.centreId) && !known.has(s.input.centreId))
      add(s.index, 'centreId', 'no centre has this id, in the batch or stored', s.id);
  }

  const batchSessions = new Set(prepared.sessions.map((s) => s.id));
  const checkHeld = async <T extends { id: string; index: number }>(
    items: T[],
    column: UniqueColumn,
    value: (item: T) => string,
    inBatch: Set<string>,
  ) => {
    const held = await holders(db, column, items.map(value));
    for (const item of items) {
      const holder = held.get(value(item));
      // A holder that is itself in the batch gives the value up or keeps it: the batch checks settle that.
      if (holder && holder !== item.id && !inBatch.has(holder))
        add(item.index, column, `${column} ${value(item)} is already used by ${holder}`, item.id);
    }
  };
  await checkHeld(prepared.centres, 'slug', (c) => c.input.slug, batchCentres);
  await checkHeld(prepared.centres, 'agrementNumber', (c) => c.input.agrementNumber, batchCentres);
  await checkHeld(prepared.sessions, 'courseNumber', (s) => s.input.courseNumber, batchSessions);

  if (scope.centreId !== null) {
    const stored = await inChunks(
      prepared.sessions.map((s) => s.id),
      (chunk) =>
        db
          .select({ id: stageSessions.id, centreId: stageSessions.centreId })
          .from(stageSessions)
          .where(inArray(stageSessions.id, chunk)),
    );
    for (const row of stored) {
      if (row.centreId === scope.centreId) continue;
      const s = prepared.sessions.find((x) => x.id === row.id);
      if (s) add(s.index, 'id', 'this session belongs to another centre', s.id);
    }
  }
  return issues;
}
