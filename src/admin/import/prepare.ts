import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import type { WriteScope } from '../repository/scope.js';
import { checkBatch } from './check-batch.js';
import { checkDeclarations } from './check-declarations.js';
import { checkStored } from './check-stored.js';
import { type ImportRecord, ImportRefused, type Prepared } from './records.js';

/**
 * Checks every record alone, then against the batch and the database (the prefecture rule on `clock`'s today). Throws ImportRefused (422)
 * listing the first issues in record order and counting them all.
 */
export async function prepare(
  db: Db,
  records: readonly ImportRecord[],
  scope: WriteScope,
  clock: Clock,
): Promise<Prepared> {
  const { prepared, issues } = await checkBatch(records, scope);
  for (const issue of await checkStored(db, records, prepared, scope)) issues.add(issue);
  for (const issue of await checkDeclarations(db, records, prepared, clock)) issues.add(issue);
  if (issues.count === 0) return prepared;
  const listed = issues.listed.length;
  throw new ImportRefused(
    422,
    'invalid_records',
    `${issues.badRecords} of ${records.length} record(s) are invalid; nothing was written.${issues.count > listed ? ` The first ${listed} of ${issues.count} issues are listed.` : ''}`,
    issues,
  );
}
