import { createHash } from 'node:crypto';
import { and, asc, eq, gt, gte, inArray, lte, or, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../db/connect.js';
import { catalogueState, centres, idempotencyKeys, stageSessions } from '../db/schema.js';
import type { ParameterError } from '../http/problem.js';
import type { AdminCentre, AdminSession, CentreInput, SessionInput, SessionPatch } from './schemas.js';

/** A refusal the routes turn into problem+json: the status, a stable code, and the fields at fault. */
export class WriteRefused extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: ParameterError[],
  ) {
    super(message);
  }
}

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
type CentreRow = typeof centres.$inferSelect;
type SessionRow = typeof stageSessions.$inferSelect;

/** Which centre a caller may write: all (operator key) or one (partner key). */
export interface WriteScope {
  centreId: string | null;
}

// Unique constraints, and the field each one is about.
const UNIQUE_FIELDS: Record<string, string> = {
  centres_slug_unique: 'slug',
  centres_agrement_number_unique: 'agrementNumber',
  stage_sessions_course_number_unique: 'courseNumber',
  reservations_reference_unique: 'reference',
};

function pgError(err: unknown): { code?: string; constraint?: string; detail?: string } | undefined {
  let current = err as { code?: unknown; constraint?: unknown; detail?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && current; i++) {
    if (typeof current.code === 'string' && /^[0-9A-Z]{5}$/.test(current.code))
      return {
        code: current.code,
        constraint: typeof current.constraint === 'string' ? current.constraint : undefined,
        detail: typeof current.detail === 'string' ? current.detail : undefined,
      };
    current = current.cause as typeof current;
  }
  return undefined;
}

/**
 * Unique violations (another record holds that slug, approval or course number) → 409 naming the
 * field; places that reservations hold (migration 0006) → 409 saying how many may be for sale.
 */
function refusalFor(err: unknown): WriteRefused | undefined {
  const pg = pgError(err);
  if (pg?.code === '23514' && pg.constraint === 'stage_sessions_places_held')
    return new WriteRefused(
      409,
      'places_held_by_reservations',
      `Reservations made on the site hold places of this session: ${pg.detail ?? 'fewer places may be for sale'}. Lower spotsAvailable (or raise capacity); a relative change (POST …/places) never needs to know.`,
      [{ name: 'spotsAvailable', reason: pg.detail ?? 'places are held by reservations' }],
    );
  if (pg?.code !== '23505') return undefined;
  const name = (pg.constraint && UNIQUE_FIELDS[pg.constraint]) ?? 'id';
  return new WriteRefused(409, 'conflict', `Another record already has this ${name}.`, [
    { name, reason: `${name} is already used by another record` },
  ]);
}

/**
 * One catalogue write: takes the catalogue's version lock first (the change-log triggers take it
 * anyway, at each statement's end; taking it first orders every writer the same way, so two writers
 * cannot deadlock), and retries a transaction PostgreSQL aborted as a deadlock or serialization loser.
 */
export async function catalogueWrite<T>(db: Db, run: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (tx) => {
        await tx.select({ id: catalogueState.id }).from(catalogueState).where(eq(catalogueState.id, 1)).for('update');
        return run(tx);
      });
    } catch (err) {
      const code = pgError(err)?.code;
      if ((code === '40P01' || code === '40001') && attempt < 3) continue;
      throw refusalFor(err) ?? err;
    }
  }
}

/** A strong validator of a stored record: any change (updatedAt included) changes it. */
export function etagOf(record: AdminSession | AdminCentre): string {
  return `"${createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.1: If-Match lists strong validators, or is `*`. */
function matches(ifMatch: string | undefined, current: string | undefined): boolean {
  if (ifMatch === undefined) return true;
  if (ifMatch.trim() === '*') return current !== undefined;
  if (current === undefined) return false;
  return ifMatch.split(',').some((tag) => tag.trim() === current);
}

function preconditionFailed(): WriteRefused {
  return new WriteRefused(
    412,
    'precondition_failed',
    'The record changed since you read it (If-Match does not match its ETag). Read it again, then retry.',
  );
}

export function centreView(row: CentreRow): AdminCentre {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    address: row.address,
    city: row.city,
    postalCode: row.postalCode,
    deptCode: row.deptCode,
    lat: row.lat,
    lng: row.lng,
    agrementNumber: row.agrementNumber,
    email: row.email,
    phone: row.phone,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function sessionView(row: SessionRow): AdminSession {
  return {
    id: row.id,
    centreId: row.centreId,
    courseNumber: row.courseNumber,
    day1: row.day1,
    day2: row.day2,
    startTime: row.startTime,
    endTime: row.endTime,
    priceEuros: row.priceCents / 100,
    capacity: row.capacity,
    spotsAvailable: row.spotsAvailable,
    status: row.status as AdminSession['status'],
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function centreValues(input: CentreInput) {
  return {
    slug: input.slug,
    name: input.name,
    address: input.address,
    city: input.city,
    postalCode: input.postalCode,
    deptCode: input.deptCode,
    lat: input.lat,
    lng: input.lng,
    agrementNumber: input.agrementNumber,
    email: input.email ?? null,
    phone: input.phone ?? null,
  };
}

export function sessionValues(input: SessionInput) {
  return {
    centreId: input.centreId,
    courseNumber: input.courseNumber,
    day1: input.day1,
    day2: input.day2 ?? addOneDay(input.day1),
    startTime: input.startTime,
    endTime: input.endTime,
    priceCents: Math.round(input.priceEuros * 100),
    capacity: input.capacity,
    spotsAvailable: input.spotsAvailable,
    status: input.status,
  };
}

function addOneDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

export async function getCentre(db: Db | Tx, id: string): Promise<AdminCentre | undefined> {
  const [row] = await db.select().from(centres).where(eq(centres.id, id));
  return row ? centreView(row) : undefined;
}

export async function getSession(db: Db | Tx, id: string): Promise<AdminSession | undefined> {
  const [row] = await db.select().from(stageSessions).where(eq(stageSessions.id, id));
  return row ? sessionView(row) : undefined;
}

function forbiddenCentre(): WriteRefused {
  return new WriteRefused(403, 'forbidden', "This key may only read and write its own centre's sessions.");
}

/** Creates or replaces a centre. */
export async function putCentre(
  db: Db,
  id: string,
  input: CentreInput,
  ifMatch: string | undefined,
): Promise<{ created: boolean; centre: AdminCentre }> {
  return catalogueWrite(db, async (tx) => {
    const [current] = await tx.select().from(centres).where(eq(centres.id, id)).for('update');
    if (!matches(ifMatch, current ? etagOf(centreView(current)) : undefined)) throw preconditionFailed();
    const values = centreValues(input);
    if (current && sameCentre(current, values)) return { created: false, centre: centreView(current) };
    const [row] = current
      ? await tx
          .update(centres)
          .set({ ...values, updatedAt: sql`now()` })
          .where(eq(centres.id, id))
          .returning()
      : await tx
          .insert(centres)
          .values({ id, ...values })
          .returning();
    return { created: !current, centre: centreView(row as CentreRow) };
  });
}

/** Creates or replaces a session (a partner only on its own centre, before and after). */
export async function putSession(
  db: Db,
  id: string,
  input: SessionInput,
  scope: WriteScope,
  ifMatch: string | undefined,
): Promise<{ created: boolean; session: AdminSession }> {
  if (scope.centreId !== null && input.centreId !== scope.centreId) throw forbiddenCentre();
  return catalogueWrite(db, async (tx) => {
    const [current] = await tx.select().from(stageSessions).where(eq(stageSessions.id, id)).for('update');
    if (current && scope.centreId !== null && current.centreId !== scope.centreId) throw forbiddenCentre();
    if (!matches(ifMatch, current ? etagOf(sessionView(current)) : undefined)) throw preconditionFailed();
    const [centre] = await tx.select({ id: centres.id }).from(centres).where(eq(centres.id, input.centreId));
    if (!centre)
      throw new WriteRefused(400, 'invalid_body', 'centreId: no centre has this id.', [
        { name: 'centreId', reason: 'no centre has this id; create it first (PUT /api/admin/centres/{id})' },
      ]);
    const values = sessionValues(input);
    if (current && sameSession(current, values)) return { created: false, session: sessionView(current) };
    const [row] = current
      ? await tx
          .update(stageSessions)
          .set({ ...values, updatedAt: sql`now()` })
          .where(eq(stageSessions.id, id))
          .returning()
      : await tx
          .insert(stageSessions)
          .values({ id, ...values })
          .returning();
    return { created: !current, session: sessionView(row as SessionRow) };
  });
}

/** Changes some fields of a session; the result is checked like a whole session. */
export async function patchSession(
  db: Db,
  id: string,
  patch: SessionPatch,
  scope: WriteScope,
  ifMatch: string | undefined,
  validate: (merged: Record<string, unknown>) => ParameterError[],
): Promise<AdminSession> {
  return catalogueWrite(db, async (tx) => {
    const [current] = await tx.select().from(stageSessions).where(eq(stageSessions.id, id)).for('update');
    if (!current) throw new WriteRefused(404, 'not_found', `No session has the id ${id}.`);
    if (scope.centreId !== null && current.centreId !== scope.centreId) throw forbiddenCentre();
    if (!matches(ifMatch, etagOf(sessionView(current)))) throw preconditionFailed();
    const { updatedAt: _, id: __, ...was } = sessionView(current);
    const merged = { ...was, ...patch };
    const errors = validate(merged);
    if (errors.length > 0)
      throw new WriteRefused(400, 'invalid_body', errors.map((e) => `${e.name}: ${e.reason}`).join('; '), errors);
    const set: Partial<typeof stageSessions.$inferInsert> = {};
    if (patch.priceEuros !== undefined) set.priceCents = Math.round(patch.priceEuros * 100);
    if (patch.spotsAvailable !== undefined) set.spotsAvailable = patch.spotsAvailable;
    if (patch.capacity !== undefined) set.capacity = patch.capacity;
    if (patch.startTime !== undefined) set.startTime = patch.startTime;
    if (patch.endTime !== undefined) set.endTime = patch.endTime;
    if (patch.status !== undefined) set.status = patch.status;
    const unchanged = Object.entries(set).every(([k, v]) => current[k as keyof SessionRow] === v);
    if (unchanged) return sessionView(current);
    const [row] = await tx
      .update(stageSessions)
      .set({ ...set, updatedAt: sql`now()` })
      .where(eq(stageSessions.id, id))
      .returning();
    return sessionView(row as SessionRow);
  });
}

export interface Idempotency {
  apiKeyId: string;
  key: string;
  /** What the request asked (method, path, body): the same key for another request is refused. */
  requestHash: string;
}

/**
 * Adds `change` to the places left, atomically: one conditional UPDATE, so that concurrent calls
 * on any number of instances can never take the count below 0 or above the capacity. With an
 * Idempotency-Key, the answer is stored in the same transaction and a retry gets it again instead
 * of a second change.
 */
export async function changePlaces(
  db: Db,
  id: string,
  change: number,
  scope: WriteScope,
  idempotency: Idempotency | undefined,
): Promise<{ session: AdminSession; replayed: boolean }> {
  return catalogueWrite(db, async (tx) => {
    if (idempotency) {
      // Waits for a concurrent call with the same key to finish, then finds its row.
      const inserted = await tx
        .insert(idempotencyKeys)
        .values({ ...idempotency, status: 0, body: {} })
        .onConflictDoNothing()
        .returning({ key: idempotencyKeys.key });
      if (inserted.length === 0) {
        const [stored] = await tx
          .select()
          .from(idempotencyKeys)
          .where(and(eq(idempotencyKeys.apiKeyId, idempotency.apiKeyId), eq(idempotencyKeys.key, idempotency.key)));
        if (stored && stored.requestHash !== idempotency.requestHash)
          throw new WriteRefused(
            422,
            'idempotency_key_reused',
            'This Idempotency-Key was already used for a different request. Use a new key for a new change.',
          );
        if (stored) return { session: stored.body as AdminSession, replayed: true };
      }
    }
    const [row] = await tx
      .update(stageSessions)
      .set({ spotsAvailable: sql`${stageSessions.spotsAvailable} + ${change}`, updatedAt: sql`now()` })
      .where(
        and(
          eq(stageSessions.id, id),
          eq(stageSessions.status, 'scheduled'),
          scope.centreId === null ? undefined : eq(stageSessions.centreId, scope.centreId),
          sql`${stageSessions.spotsAvailable} + ${change} between 0 and ${stageSessions.capacity}`,
        ),
      )
      .returning();
    if (!row) {
      const [current] = await tx.select().from(stageSessions).where(eq(stageSessions.id, id));
      if (!current) throw new WriteRefused(404, 'not_found', `No session has the id ${id}.`);
      if (scope.centreId !== null && current.centreId !== scope.centreId) throw forbiddenCentre();
      if (current.status === 'cancelled')
        throw new WriteRefused(409, 'session_cancelled', 'This session is cancelled: its places cannot change.');
      const after = current.spotsAvailable + change;
      throw new WriteRefused(
        409,
        'places_out_of_range',
        `${current.spotsAvailable} place${current.spotsAvailable === 1 ? '' : 's'} left of ${current.capacity}: a change of ${change} would leave ${after}, outside 0 to ${current.capacity}.`,
      );
    }
    const session = sessionView(row);
    if (idempotency) {
      await tx
        .update(idempotencyKeys)
        .set({ status: 200, body: session })
        .where(and(eq(idempotencyKeys.apiKeyId, idempotency.apiKeyId), eq(idempotencyKeys.key, idempotency.key)));
    }
    return { session, replayed: false };
  });
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

export async function existingCentreIds(db: Db | Tx, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: centres.id })
    .from(centres)
    .where(inArray(centres.id, [...ids]));
  return new Set(rows.map((r) => r.id));
}

function sameCentre(row: CentreRow, v: ReturnType<typeof centreValues>): boolean {
  return (Object.keys(v) as (keyof typeof v)[]).every((k) => row[k] === v[k]);
}

function sameSession(row: SessionRow, v: ReturnType<typeof sessionValues>): boolean {
  return (Object.keys(v) as (keyof typeof v)[]).every((k) => row[k] === v[k]);
}

export type { CentreRow, SessionRow, Tx };
export { sameCentre, sameSession };
