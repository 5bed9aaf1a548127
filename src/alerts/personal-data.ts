import { asc, eq } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { alerts } from '../db/schema.js';
import type { Tx } from '../db/write.js';

/** One alert as its person downloads it ("Mes données"): what it watches, its state, who made it. */
export interface AlertData {
  /** The session it watches for a freed place, or null for a search alert. */
  sessionId: string | null;
  /** A search alert's criteria (place, dates, price), as the person gave them. */
  search: unknown;
  createdAt: string;
  /** `site` (the person's form) or `agent` (an agent acting for them, named by its client id). */
  createdVia: string;
  clientId: string | null;
  confirmedAt: string | null;
  endsAt: string;
  lastSentAt: string | null;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** Every alert held for `email` (any case), running or ended and not yet purged, oldest first. */
export async function alertDataOf(db: Db, email: string): Promise<AlertData[]> {
  const rows = await db
    .select()
    .from(alerts)
    .where(eq(alerts.emailKey, email.trim().toLowerCase()))
    .orderBy(asc(alerts.createdAt), asc(alerts.id));
  return rows.map((a) => ({
    sessionId: a.sessionId,
    search: a.search,
    createdAt: a.createdAt.toISOString(),
    createdVia: a.createdVia,
    clientId: a.clientId,
    confirmedAt: iso(a.confirmedAt),
    endsAt: a.endsAt.toISOString(),
    lastSentAt: iso(a.lastSentAt),
  }));
}

/**
 * A person's erasure of their alerts: each deleted with its links and the sessions it was told of.
 * The count of confirmation emails sent to the address (a hash of it, kept a day) stays: it is the
 * abuse limit of 3 a day, which deleting one's data must not reset.
 */
export async function eraseAlertsOf(tx: Tx, email: string): Promise<number> {
  const deleted = await tx
    .delete(alerts)
    .where(eq(alerts.emailKey, email.trim().toLowerCase()))
    .returning({ id: alerts.id });
  return deleted.length;
}
