import { and, asc, eq, gt, gte, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import { centres, stageSessions } from '../../db/schema.js';
import { catalogueWrite, type Told, type Tx } from '../../db/write.js';
import { WriteRefused } from '../../db/write-refused.js';
import type { Actor } from '../../history/actor.js';
import { sessionChanges } from '../../history/changes.js';
import { historyWith } from '../../history/record.js';
import type { ParameterError } from '../../http/problem.js';
import { declarationIssue, declarationRefused, todayFor } from '../declaration.js';
import type { AdminSession } from '../response-schemas.js';
import type { SessionInput, SessionPatch } from '../schemas.js';
import { etagOf, matches, preconditionFailed } from './etag.js';
import { placesOnSale } from './places-model.js';
import { forbiddenCentre, type WriteScope } from './scope.js';
import { type SessionRow, sameSession, sessionValues, sessionView } from './views.js';

export async function getSession(db: Db | Tx, id: string): Promise<AdminSession | undefined> {
  const [row] = await db.select().from(stageSessions).where(eq(stageSessions.id, id));
  return row ? sessionView(row) : undefined;
}

/** The session's row, locked until the write commits; kept planned, as every write of a session asks (db/prepared.ts). */
function lockSession(tx: Tx, id: string) {
  return tx
    .select()
    .from(stageSessions)
    .where(eq(stageSessions.id, id))
    .for('update')
    .prepare('session_locked')
    .execute();
}

/** Creates or replaces a session (a partner only on its own centre, before and after). */
export async function putSession(
  db: Db,
  id: string,
  input: SessionInput,
  scope: WriteScope,
  ifMatch: string | undefined,
  clock: Clock,
  actor: Actor,
  told?: Told,
): Promise<{ created: boolean; session: AdminSession }> {
  if (scope.centreId !== null && input.centreId !== scope.centreId) throw forbiddenCentre();
  return catalogueWrite(
    db,
    async (tx) => {
      const [current] = await lockSession(tx, id);
      if (current && scope.centreId !== null && current.centreId !== scope.centreId) throw forbiddenCentre();
      if (!matches(ifMatch, current ? etagOf(sessionView(current)) : undefined)) throw preconditionFailed();
      const [centre] = await tx
        .select({ id: centres.id, deptCode: centres.deptCode })
        .from(centres)
        .where(eq(centres.id, input.centreId));
      if (!centre)
        throw new WriteRefused(400, 'invalid_body', 'centreId: no centre has this id.', [
          { name: 'centreId', reason: 'no centre has this id; create it first (PUT /api/admin/centres/{id})' },
        ]);
      const values = sessionValues(input, current?.heldHere);
      const late = declarationIssue(values, todayFor(clock, centre.deptCode), current);
      if (late) throw declarationRefused(late);
      if (current) checkGroup(values.capacity, current.heldHere);
      if (current && sameSession(current, values)) return { created: false, session: sessionView(current) };
      // The row written holds `values` as they are (the one trigger that alters a written row sets
      // held_here, which no history shows): its history is known before.
      const history = historyWith(tx, actor, sessionChanges(id, current, values));
      const write = history ? tx.with(history) : tx;
      const [row] = current
        ? await write
            .update(stageSessions)
            .set({ ...values, updatedAt: sql`now()` })
            .where(eq(stageSessions.id, id))
            .returning()
        : await write
            .insert(stageSessions)
            .values({ id, ...values })
            .returning();
      return { created: !current, session: sessionView(row as SessionRow) };
    },
    told,
  );
}

/**
 * The bookings made here keep their places whatever the centre writes: a capacity below them is
 * refused (the CHECK stage_sessions_places_held would refuse it too; this says it in words).
 */
function checkGroup(capacity: number, heldHere: number): void {
  if (capacity >= heldHere) return;
  throw new WriteRefused(
    409,
    'places_held_by_reservations',
    `${heldHere} reservations made here hold places of this session: its capacity cannot be below ${heldHere}. Cancel reservations first, or cancel the session.`,
    [{ name: 'capacity', reason: `${heldHere} places are held by reservations made here` }],
  );
}

/** The columns a patch sets (only the fields it names), its places set against the bookings held now. */
function patchColumns(patch: SessionPatch, current: SessionRow): Partial<typeof stageSessions.$inferInsert> {
  const set: Partial<typeof stageSessions.$inferInsert> = {};
  if (patch.priceEuros !== undefined) set.priceCents = Math.round(patch.priceEuros * 100);
  if (patch.spotsAvailable !== undefined)
    set.spotsAvailable = placesOnSale(
      { spotsAvailable: patch.spotsAvailable, heldHere: patch.heldHere },
      current.heldHere,
    );
  if (patch.capacity !== undefined) set.capacity = patch.capacity;
  if (patch.startTime !== undefined) set.startTime = patch.startTime;
  if (patch.endTime !== undefined) set.endTime = patch.endTime;
  if (patch.status !== undefined) set.status = patch.status;
  if (patch.declaredOn !== undefined) set.declaredOn = patch.declaredOn;
  return set;
}

/** Changes some fields of a session; the result is checked like a whole session. */
export async function patchSession(
  db: Db,
  id: string,
  patch: SessionPatch,
  scope: WriteScope,
  ifMatch: string | undefined,
  validate: (merged: Record<string, unknown>) => ParameterError[],
  clock: Clock,
  actor: Actor,
  told?: Told,
): Promise<AdminSession> {
  return catalogueWrite(db, (tx) => patchSessionIn(tx, id, patch, scope, ifMatch, validate, clock, actor), told);
}

/** `patchSession` in a catalogue write the caller holds, for a change made with others (a cancellation and its emails). */
export async function patchSessionIn(
  tx: Tx,
  id: string,
  patch: SessionPatch,
  scope: WriteScope,
  ifMatch: string | undefined,
  validate: (merged: Record<string, unknown>) => ParameterError[],
  clock: Clock,
  actor: Actor,
): Promise<AdminSession> {
  const [current] = await lockSession(tx, id);
  if (!current) throw new WriteRefused(404, 'not_found', `No session has the id ${id}.`);
  if (scope.centreId !== null && current.centreId !== scope.centreId) throw forbiddenCentre();
  if (!matches(ifMatch, etagOf(sessionView(current)))) throw preconditionFailed();
  const { updatedAt: _, id: __, heldHere: ___, ...was } = sessionView(current);
  const errors = validate({ ...was, ...patch });
  if (errors.length > 0)
    throw new WriteRefused(400, 'invalid_body', errors.map((e) => `${e.name}: ${e.reason}`).join('; '), errors);
  if (patch.declaredOn !== undefined && patch.declaredOn !== current.declaredOn) {
    const [centre] = await tx
      .select({ deptCode: centres.deptCode })
      .from(centres)
      .where(eq(centres.id, current.centreId));
    const late = declarationIssue(
      { day1: current.day1, declaredOn: patch.declaredOn, status: patch.status ?? current.status },
      todayFor(clock, centre?.deptCode ?? ''),
      current,
    );
    if (late) throw declarationRefused(late);
  }
  checkGroup(patch.capacity ?? current.capacity, current.heldHere);
  const set = patchColumns(patch, current);
  const unchanged = Object.entries(set).every(([k, v]) => current[k as keyof SessionRow] === v);
  if (unchanged) return sessionView(current);
  // The row written is the current one with `set` over it (the one trigger that alters a written row
  // sets held_here, which no history shows): its history is known before.
  const history = historyWith(tx, actor, sessionChanges(id, current, { ...current, ...set }));
  const [row] = await (history ? tx.with(history) : tx)
    .update(stageSessions)
    .set({ ...set, updatedAt: sql`now()` })
    .where(eq(stageSessions.id, id))
    .returning();
  return sessionView(row as SessionRow);
}

export interface SessionFilter {
  centreId?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  status?: 'scheduled' | 'cancelled' | undefined;
  /** Sessions after this one in (day1, id) order: the cursor of the previous page. */
  after?: { day1: string; id: string } | undefined;
  limit: number;
}

/** Sessions in (day1, id) order, past, full and cancelled included. */
export async function listSessions(db: Db, filter: SessionFilter): Promise<AdminSession[]> {
  const conditions: (SQL | undefined)[] = [
    filter.centreId ? eq(stageSessions.centreId, filter.centreId) : undefined,
    filter.from ? gte(stageSessions.day1, filter.from) : undefined,
    filter.to ? lte(stageSessions.day1, filter.to) : undefined,
    filter.status ? eq(stageSessions.status, filter.status) : undefined,
    filter.after
      ? or(
          gt(stageSessions.day1, filter.after.day1),
          and(eq(stageSessions.day1, filter.after.day1), gt(stageSessions.id, filter.after.id)),
        )
      : undefined,
  ];
  const rows = await db
    .select()
    .from(stageSessions)
    .where(and(...conditions))
    .orderBy(asc(stageSessions.day1), asc(stageSessions.id))
    .limit(filter.limit);
  return rows.map(sessionView);
}
