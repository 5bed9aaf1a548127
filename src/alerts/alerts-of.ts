import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { alerts } from '../db/schema.js';
import { type SearchCriteria, searchCriteria } from './criteria.js';

/** One of a person's alerts as their area shows it. */
export interface PersonAlert {
  id: string;
  sessionId: string | null;
  search: SearchCriteria | null;
  confirmed: boolean;
  endsAt: Date;
}

/** The running alerts made with `email` (any case), soonest to end first. */
export async function alertsOf(db: Db, email: string, now: Date): Promise<PersonAlert[]> {
  const rows = await db
    .select({
      id: alerts.id,
      sessionId: alerts.sessionId,
      search: alerts.search,
      confirmedAt: alerts.confirmedAt,
      endsAt: alerts.endsAt,
    })
    .from(alerts)
    .where(and(eq(alerts.emailKey, email.trim().toLowerCase()), gt(alerts.endsAt, now)))
    .orderBy(asc(alerts.endsAt), asc(alerts.id));
  return rows.map((r) => {
    const search = r.search === null ? undefined : searchCriteria.safeParse(r.search);
    return {
      id: r.id,
      sessionId: r.sessionId,
      search: search?.success ? search.data : null,
      confirmed: r.confirmedAt !== null,
      endsAt: r.endsAt,
    };
  });
}
