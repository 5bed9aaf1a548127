import { inArray } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import type { FieldError } from '../../core/errors.js';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import { declarationIssue, todayFor } from '../declaration.js';
import { type ImportRecord, inChunks, issueAt, type Prepared } from './records.js';

/**
 * The prefecture rule (admin/declaration.ts) on each session of a batch, against the session as
 * stored: a record that neither creates a session nor changes its day1 or declaredOn is not
 * refused for it, so an export imported back changes nothing whatever the date. Only the sessions
 * the rule would refuse as new ones are looked up: a batch of 5,000 sessions far ahead reads
 * nothing more than its centres' departments.
 */
export async function checkDeclarations(
  db: Db,
  records: readonly ImportRecord[],
  prepared: Prepared,
  clock: Clock,
): Promise<FieldError[]> {
  if (prepared.sessions.length === 0) return [];
  const deptOf = new Map(prepared.centres.map((c) => [c.id, c.input.deptCode]));
  const wanted = [...new Set(prepared.sessions.map((s) => s.input.centreId))].filter((id) => !deptOf.has(id));
  const stored = await inChunks(wanted, (chunk) =>
    db.select({ id: centres.id, deptCode: centres.deptCode }).from(centres).where(inArray(centres.id, chunk)),
  );
  for (const row of stored) deptOf.set(row.id, row.deptCode);

  const todayByDept = new Map<string, string>();
  const todayOf = (deptCode: string) => {
    let today = todayByDept.get(deptCode);
    if (today === undefined) {
      today = todayFor(clock, deptCode);
      todayByDept.set(deptCode, today);
    }
    return today;
  };

  // As new sessions first: those that pass need no look-up.
  const suspects = prepared.sessions.flatMap((s) => {
    const deptCode = deptOf.get(s.input.centreId);
    // A centre that is nowhere has been reported by checkStored already.
    if (deptCode === undefined) return [];
    const session = { day1: s.input.day1, declaredOn: s.input.declaredOn ?? null, status: s.input.status };
    const today = todayOf(deptCode);
    return declarationIssue(session, today, undefined) ? [{ s, session, today }] : [];
  });
  if (suspects.length === 0) return [];
  const current = new Map(
    (
      await inChunks(
        suspects.map(({ s }) => s.id),
        (chunk) =>
          db
            .select({ id: stageSessions.id, day1: stageSessions.day1, declaredOn: stageSessions.declaredOn })
            .from(stageSessions)
            .where(inArray(stageSessions.id, chunk)),
      )
    ).map((row) => [row.id, row]),
  );
  const byIndex = new Map(records.map((r) => [r.index, r]));
  const issues: FieldError[] = [];
  for (const { s, session, today } of suspects) {
    const reason = declarationIssue(session, today, current.get(s.id));
    if (reason) issues.push(issueAt(byIndex.get(s.index) as ImportRecord, 'declaredOn', reason, s.id));
  }
  return issues;
}
