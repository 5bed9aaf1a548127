import { createHash } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { sessionStatus } from '../catalogue/session-status.js';
import { addDays } from '../core/clock.js';
import type { Db } from '../db/connect.js';
import { alertConfirmationsSent, alerts } from '../db/schema.js';
import type { Tx } from '../db/write.js';
import { queueMail } from '../mail/outbox.js';
import type { AlertCreator, AlertCriteria, SearchCriteria } from './criteria.js';
import { searchInWords, sessionInWords } from './describe.js';
import { confirmPath, newAlertLink, unsubscribePath } from './links.js';
import { alreadyActiveMail, confirmationMail } from './mails.js';

/** Alerts one email may have running at once (confirmed or awaiting confirmation). */
export const MAX_ACTIVE_ALERTS = 10;
/** Confirmation emails one address may be sent in 24 hours, whatever the number of alerts. */
export const MAX_CONFIRMATIONS_PER_DAY = 3;
/** How long a search alert with no end date runs. */
export const SEARCH_ALERT_MONTHS = 3;
const DAY_MS = 86_400_000;

export interface CreateAlertInput {
  email: string;
  criteria: AlertCriteria;
  creator: AlertCreator;
  /**
   * The email is proven already (a signed-in person's own address, from the emailed sign-in): the
   * alert runs at once and no confirmation is sent.
   */
  confirmed: boolean;
}

export interface CreateAlertDeps {
  now: Date;
  snapshot: CatalogueSnapshot;
  baseUrl: string;
  platformName: string;
}

/**
 * `sent`: a confirmation (or an "already active") email is queued — the answer the same whether or
 * not the address had the alert; `active`: confirmed at once, with the alert's id and the claim it
 * was made under (null: by the site; an alert found again keeps its maker); the others are refusals.
 */
export type CreateAlertResult =
  | { kind: 'sent' }
  | { kind: 'active'; alertId: string; claimId: string | null }
  | { kind: 'unknown-session' }
  | { kind: 'not-full' }
  | { kind: 'too-many' }
  | { kind: 'too-many-mails' };

/** The email's key in the confirmations' count: its SHA-256, so that this table holds no address. */
function emailHash(emailKey: string): string {
  return createHash('sha256').update(emailKey).digest('base64url');
}

/**
 * Creates an alert for `email` (any door: the site's form, or later an agent acting for a signed-in
 * person), or finds the same one again: an address never holds the same alert twice. Unless the
 * email is already proven, the one email sent is the confirmation (double opt-in). Checked in one
 * transaction under a lock on the address, so the limits hold across instances: at most
 * MAX_ACTIVE_ALERTS alerts per email, MAX_CONFIRMATIONS_PER_DAY confirmation emails per day.
 */
export async function createAlert(db: Db, input: CreateAlertInput, deps: CreateAlertDeps): Promise<CreateAlertResult> {
  const { now } = deps;
  const emailKey = input.email.trim().toLowerCase();
  let what: string;
  let endsAt: Date;
  let sessionId: string | null = null;
  let search: SearchCriteria | null = null;
  if ('sessionId' in input.criteria) {
    const entry = deps.snapshot.sessionsById.get(input.criteria.sessionId);
    if (!entry) return { kind: 'unknown-session' };
    const status = sessionStatus(entry, now);
    // Cancelled or begun: there is nothing to wait for; open: book it now.
    if (status === 'cancelled' || status === 'past') return { kind: 'unknown-session' };
    if (status === 'available') return { kind: 'not-full' };
    sessionId = entry.record.id;
    what = `si une place se libère pour ${sessionInWords(entry)}`;
    // It ends when the session starts (cancelled or gone from the catalogue earlier: see match.ts, purge.ts).
    endsAt = new Date(entry.startsAt);
  } else {
    search = input.criteria.search;
    what = `des nouveaux stages ${searchInWords(search)}`;
    endsAt = search.to
      ? // The day after its last first day, at midnight UTC: after every session starting that day.
        new Date(`${addDays(search.to, 1)}T00:00:00Z`)
      : monthsAfter(now, SEARCH_ALERT_MONTHS);
  }
  return db.transaction(async (tx) => {
    // One address at a time, whichever instance: the counts below then stay true until commit.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`alerts:${emailKey}`}))`);
    const active = and(eq(alerts.emailKey, emailKey), gt(alerts.endsAt, now));
    const same = sessionId ? eq(alerts.sessionId, sessionId) : sql`${alerts.search} = ${JSON.stringify(search)}::jsonb`;
    const [existing] = await tx
      .select({ id: alerts.id, confirmedAt: alerts.confirmedAt, claimId: alerts.claimId })
      .from(alerts)
      .where(and(active, same))
      .limit(1);
    if (!existing) {
      const [count] = await tx.select({ n: sql<number>`count(*)::int` }).from(alerts).where(active);
      if ((count?.n ?? 0) >= MAX_ACTIVE_ALERTS) return { kind: 'too-many' };
    }
    if (input.confirmed) {
      if (existing) {
        await tx
          .update(alerts)
          .set({ confirmedAt: now })
          .where(and(eq(alerts.id, existing.id), isNull(alerts.confirmedAt)));
        return { kind: 'active', alertId: existing.id, claimId: existing.claimId };
      }
      const alertId = await insertAlert(tx, {
        emailKey,
        email: input.email.trim(),
        sessionId,
        search,
        endsAt,
        now,
        creator: input.creator,
        confirmed: true,
      });
      return { kind: 'active', alertId, claimId: input.creator.via === 'agent' ? input.creator.claimId : null };
    }
    const hash = emailHash(emailKey);
    const [sent] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(alertConfirmationsSent)
      .where(
        and(
          eq(alertConfirmationsSent.emailHash, hash),
          gt(alertConfirmationsSent.sentAt, new Date(now.getTime() - DAY_MS)),
        ),
      );
    if ((sent?.n ?? 0) >= MAX_CONFIRMATIONS_PER_DAY) return { kind: 'too-many-mails' };
    const alertId =
      existing?.id ??
      (await insertAlert(tx, {
        emailKey,
        email: input.email.trim(),
        sessionId,
        search,
        endsAt,
        now,
        creator: input.creator,
        confirmed: false,
      }));
    const context = {
      to: input.email.trim(),
      baseUrl: deps.baseUrl,
      platformName: deps.platformName,
      unsubscribePath: unsubscribePath(await newAlertLink(tx, alertId, 'unsubscribe')),
      what,
    };
    const mail = existing?.confirmedAt
      ? alreadyActiveMail(context)
      : confirmationMail({ ...context, confirmPath: confirmPath(await newAlertLink(tx, alertId, 'confirm')) });
    await queueMail(tx, mail, { secret: true });
    await tx.insert(alertConfirmationsSent).values({ emailHash: hash, sentAt: now });
    return { kind: 'sent' };
  });
}

async function insertAlert(
  tx: Tx,
  a: {
    emailKey: string;
    email: string;
    sessionId: string | null;
    search: SearchCriteria | null;
    endsAt: Date;
    now: Date;
    creator: AlertCreator;
    confirmed: boolean;
  },
): Promise<string> {
  const [row] = await tx
    .insert(alerts)
    .values({
      email: a.email,
      emailKey: a.emailKey,
      sessionId: a.sessionId,
      search: a.search,
      createdVia: a.creator.via,
      clientId: a.creator.via === 'agent' ? a.creator.clientId : null,
      claimId: a.creator.via === 'agent' ? a.creator.claimId : null,
      confirmedAt: a.confirmed ? a.now : null,
      endsAt: a.endsAt,
      createdAt: a.now,
    })
    .returning({ id: alerts.id });
  if (!row) throw new Error('the alert was not stored');
  return row.id;
}

/** `months` calendar months after `instant` (UTC), as people count "three months". */
function monthsAfter(instant: Date, months: number): Date {
  const d = new Date(instant);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
}
