import { and, desc, eq, getTableColumns, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { changeHistory } from '../db/schema.js';
import type { HistoryEntity } from './changes.js';

export interface HistoryFilter {
  centreId?: string | undefined;
  entity?: HistoryEntity | undefined;
  /** Only these kinds of record (a page that may not show them all). */
  entities?: readonly HistoryEntity[] | undefined;
  entityId?: string | undefined;
  /** Rows after this one in (at desc, id desc) order: the cursor of the previous page. */
  before?: { at: Date; id: string } | undefined;
  limit: number;
}

// As the reservations' list: pages are cut on (time, id) at the millisecond a cursor carries.
const AT_MS = sql<Date>`date_trunc('milliseconds', ${changeHistory.at})`;

/** The history, newest first: a write's rows share its transaction's time, then go by id. */
export async function listHistory(db: Db, filter: HistoryFilter) {
  const conditions: (SQL | undefined)[] = [
    filter.centreId ? eq(changeHistory.centreId, filter.centreId) : undefined,
    filter.entity ? eq(changeHistory.entity, filter.entity) : undefined,
    filter.entities ? inArray(changeHistory.entity, [...filter.entities]) : undefined,
    filter.entityId ? eq(changeHistory.entityId, filter.entityId) : undefined,
    filter.before
      ? sql`(${AT_MS}, ${changeHistory.id}) < (${filter.before.at.toISOString()}::timestamptz, ${filter.before.id}::uuid)`
      : undefined,
  ];
  return db
    .select({
      ...getTableColumns(changeHistory),
      cursorAt: sql<string>`to_char(${AT_MS} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    })
    .from(changeHistory)
    .where(and(...conditions))
    .orderBy(desc(AT_MS), desc(changeHistory.id))
    .limit(filter.limit);
}
