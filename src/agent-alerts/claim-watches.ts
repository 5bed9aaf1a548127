import { and, asc, eq, gt } from 'drizzle-orm';
import { searchCriteria } from '../alerts/criteria.js';
import type { Db } from '../db/connect.js';
import { alerts } from '../db/schema.js';
import type { Watch } from './watch-view.js';

/** Selects only what an agent may see of an alert: never the email. */
const WATCH_COLUMNS = {
  id: alerts.id,
  sessionId: alerts.sessionId,
  search: alerts.search,
  confirmedAt: alerts.confirmedAt,
  endsAt: alerts.endsAt,
  lastSentAt: alerts.lastSentAt,
};

type WatchRow = { [K in keyof typeof WATCH_COLUMNS]: (typeof WATCH_COLUMNS)[K]['_']['data'] | null };

function toWatch(row: WatchRow): Watch {
  const search = row.search === null ? undefined : searchCriteria.safeParse(row.search);
  return {
    id: row.id as string,
    sessionId: row.sessionId,
    search: search?.success ? search.data : null,
    confirmed: row.confirmedAt !== null,
    endsAt: (row.endsAt as Date).toISOString(),
    lastSentAt: row.lastSentAt?.toISOString() ?? null,
  };
}

/** The running alerts made under one claim (whichever person's email: the claim names one person). */
export async function claimWatches(db: Db, claimId: string, now: Date): Promise<Watch[]> {
  const rows = await db
    .select(WATCH_COLUMNS)
    .from(alerts)
    .where(and(eq(alerts.claimId, claimId), gt(alerts.endsAt, now)))
    .orderBy(asc(alerts.endsAt), asc(alerts.id));
  return rows.map(toWatch);
}

/** One running alert of the claim, or undefined (another claim's, another client's, ended, unknown). */
export async function claimWatch(db: Db, claimId: string, alertId: string, now: Date): Promise<Watch | undefined> {
  const [row] = await db
    .select(WATCH_COLUMNS)
    .from(alerts)
    .where(and(eq(alerts.id, alertId), eq(alerts.claimId, claimId), gt(alerts.endsAt, now)));
  return row ? toWatch(row) : undefined;
}
