import { and, eq, gt, inArray, isNotNull, isNull, lte, or } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { formatPrice } from '../catalogue/price.js';
import type { CatalogueSnapshot, SessionEntry } from '../catalogue/read-model.js';
import { readCatalogueVersion } from '../catalogue/repository.js';
import { LIMIT_MAX } from '../catalogue/schemas.js';
import { SearchArgumentError, searchStages } from '../catalogue/search.js';
import { sessionStatus } from '../catalogue/session-status.js';
import type { Db } from '../db/connect.js';
import { alertSentSessions, alerts, jobs } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { queueMail } from '../mail/outbox.js';
import { sessionPath } from '../web/components.js';
import { frenchDate } from '../web/format.js';
import { type SearchCriteria, searchCriteria } from './criteria.js';
import { searchInWords, sessionInWords } from './describe.js';
import { newAlertLink, unsubscribePath } from './links.js';
import { newSessionsMail, placeFreedMail } from './mails.js';
import { ALERT_MATCH_JOB } from './record-freed-places.js';

/** At most one email per alert in this time. */
export const QUIET_MS = 6 * 3_600_000;

const matchPayload = z.object({ sessionIds: z.array(z.string()), version: z.number() });

/**
 * Whether the catalogue's own search, with a search alert's filters, finds `entry` (with places):
 * the search is asked for that session's first day only, so it walks a few sessions.
 */
export function searchFinds(snapshot: CatalogueSnapshot, q: SearchCriteria, entry: SessionEntry, now: Date): boolean {
  const day = entry.record.day1;
  if ((q.from && day < q.from) || (q.to && day > q.to)) return false;
  let cursor: string | undefined;
  try {
    do {
      const found = searchStages(
        snapshot,
        { ...q, from: day, to: day, limit: LIMIT_MAX, includeUnavailable: false, ...(cursor ? { cursor } : {}) },
        now,
      );
      if (found.entries.some((e) => e.record.id === entry.record.id)) return true;
      cursor = found.nextCursor;
    } while (cursor);
  } catch (err) {
    // A place the gazetteer no longer knows: that alert finds nothing.
    if (err instanceof SearchArgumentError) return false;
    throw err;
  }
  return false;
}

interface MailDeps {
  baseUrl: string;
  platformName: string;
}

/**
 * The match job: the sessions that gained places, as this instance's read model shows them once
 * it holds the write's version; those still open (not begun, not cancelled, with places) are
 * matched against the confirmed, running alerts that were not emailed in the last 6 hours. In one
 * transaction the job's own row is deleted (only while this worker holds it: a second run after a
 * lost lease finds none and sends nothing), the emails queued in the outbox and each alert's
 * last-sent stamped, its rows locked so that two match jobs on two instances cannot both email it.
 */
export function registerAlertMatching(app: FastifyInstance, deps: MailDeps): void {
  const db: Db = app.database.db;
  app.jobs.handle(ALERT_MATCH_JOB, async (payload, job) => {
    const p = matchPayload.parse(payload);
    // The payload's version is the least the write could take (it took its own at COMMIT); the
    // catalogue's version now, the job being visible only once the write committed, holds it.
    const version = Math.max(p.version, await readCatalogueVersion(db));
    if (app.catalogue.snapshot.version < version) await app.catalogue.refresh();
    const snapshot = app.catalogue.snapshot;
    if (snapshot.version < version) throw new Error('the read model does not hold the change yet');
    const now = app.clock.now();
    const open = p.sessionIds
      .map((id) => snapshot.sessionsById.get(id))
      .filter((e): e is SessionEntry => e !== undefined && sessionStatus(e, now) === 'available');
    const queued = await db.transaction(async (tx) => {
      const [mine] = await tx
        .delete(jobs)
        .where(and(eq(jobs.id, job.id), eq(jobs.lockedBy, app.jobs.id)))
        .returning({ id: jobs.id });
      if (!mine || open.length === 0) return 0;
      return (await tellSessionAlerts(tx, open, now, deps)) + (await tellSearchAlerts(tx, snapshot, open, now, deps));
    });
    if (queued > 0) app.jobs.wake();
  });
}

function due(now: Date) {
  return and(
    isNotNull(alerts.confirmedAt),
    gt(alerts.endsAt, now),
    or(isNull(alerts.lastSentAt), lte(alerts.lastSentAt, new Date(now.getTime() - QUIET_MS))),
  );
}

async function tellSessionAlerts(tx: Tx, open: SessionEntry[], now: Date, deps: MailDeps): Promise<number> {
  const byId = new Map(open.map((e) => [e.record.id, e]));
  const rows = await tx
    .select({ id: alerts.id, email: alerts.email, sessionId: alerts.sessionId })
    .from(alerts)
    .where(and(due(now), inArray(alerts.sessionId, [...byId.keys()])))
    .orderBy(alerts.id)
    .for('update');
  for (const row of rows) {
    const entry = byId.get(row.sessionId as string) as SessionEntry;
    await queueMail(
      tx,
      placeFreedMail({
        to: row.email,
        ...deps,
        unsubscribePath: unsubscribePath(await newAlertLink(tx, row.id, 'unsubscribe')),
        session: sessionInWords(entry),
        city: entry.view.centre.city,
        day1: frenchDate(entry.record.day1),
        path: sessionPath(entry.record.id),
      }),
      { secret: true },
    );
    await tx.update(alerts).set({ lastSentAt: now }).where(eq(alerts.id, row.id));
  }
  return rows.length;
}

async function tellSearchAlerts(
  tx: Tx,
  snapshot: CatalogueSnapshot,
  open: SessionEntry[],
  now: Date,
  deps: MailDeps,
): Promise<number> {
  const rows = await tx
    .select({ id: alerts.id, email: alerts.email, search: alerts.search })
    .from(alerts)
    .where(and(due(now), isNotNull(alerts.search)))
    .orderBy(alerts.id)
    .for('update');
  let sent = 0;
  for (const row of rows) {
    const criteria = searchCriteria.safeParse(row.search);
    if (!criteria.success) continue;
    const found = open.filter((e) => searchFinds(snapshot, criteria.data, e, now));
    if (found.length === 0) continue;
    // Never the same session twice: a session the alert was told of is not news.
    const told = await tx
      .select({ sessionId: alertSentSessions.sessionId })
      .from(alertSentSessions)
      .where(
        and(
          eq(alertSentSessions.alertId, row.id),
          inArray(
            alertSentSessions.sessionId,
            found.map((e) => e.record.id),
          ),
        ),
      );
    const toldIds = new Set(told.map((t) => t.sessionId));
    const fresh = found.filter((e) => !toldIds.has(e.record.id));
    if (fresh.length === 0) continue;
    await queueMail(
      tx,
      newSessionsMail({
        to: row.email,
        ...deps,
        unsubscribePath: unsubscribePath(await newAlertLink(tx, row.id, 'unsubscribe')),
        search: searchInWords(criteria.data),
        sessions: fresh.map((e) => ({
          line: `${frenchDate(e.record.day1)} à ${e.view.centre.city} (${e.view.centre.name}), ${formatPrice(e.view.priceEuros)}`,
          path: sessionPath(e.record.id),
        })),
      }),
      { secret: true },
    );
    await tx.insert(alertSentSessions).values(fresh.map((e) => ({ alertId: row.id, sessionId: e.record.id })));
    await tx.update(alerts).set({ lastSentAt: now }).where(eq(alerts.id, row.id));
    sent++;
  }
  return sent;
}
