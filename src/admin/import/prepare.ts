import type { Db } from '../../db/connect.js';
import type { WriteScope } from '../repository/scope.js';
import { checkBatch } from './check-batch.js';
import { checkStored } from './check-stored.js';
import { type ImportRecord, ImportRefused, type Prepared } from './records.js';

/** Most issues listed in one answer: past this, the rest are counted, not listed. */
const MAX_ISSUES = 1000;

/** Checks every record alone, then against the batch and the database. Throws ImportRefused (422) listing all. */
export async function prepare(db: Db, records: readonly ImportRecord[], scope: WriteScope): Promise<Prepared> {
  const { prepared, issues } = checkBatch(records, scope);
  issues.push(...(await checkStored(db, records, prepared, scope)));
  if (issues.length === 0) return prepared;
  // Stable: a record's issues stay in the order they were found.
  issues.sort((a, b) => (a.index as number) - (b.index as number));
  const badRecords = new Set(issues.map((i) => i.index)).size;
  throw new ImportRefused(
    422,
    'invalid_records',
    `${badRecords} of ${records.length} record(s) are invalid; nothing was written.${issues.length > MAX_ISSUES ? ` The first ${MAX_ISSUES} of ${issues.length} issues are listed.` : ''}`,
    issues.slice(0, MAX_ISSUES),
  );
}
