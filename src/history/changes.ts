import type { centres, stageSessions } from '../db/schema.js';

/*
 * A write's changed fields, named and written as the admin API names them (priceEuros, not
 * price_cents), each value as text. Only the fields a centre or operator writes are compared:
 * heldHere moves with bookings, and updatedAt with every write.
 */

export const HISTORY_ENTITIES = ['centre', 'session', 'reservation', 'member', 'api_key'] as const;
/** What a change is of: a centre, a session, a reservation; a member of its team, one of its API keys. */
export type HistoryEntity = (typeof HISTORY_ENTITIES)[number];

/** One changed field of one record. */
export interface Change {
  centreId: string;
  entity: HistoryEntity;
  entityId: string;
  field: string;
  oldValue: string | null;
  newValue: string | null;
}

type SessionColumns = Omit<typeof stageSessions.$inferSelect, 'id' | 'heldHere' | 'createdAt' | 'updatedAt'>;
type CentreRow = typeof centres.$inferSelect;
/** What a centre write sets; the approval and suspension columns only when that write sets them. */
type CentreColumns = Omit<
  CentreRow,
  'id' | 'createdAt' | 'updatedAt' | 'approvedOn' | 'suspendedAt' | 'suspensionReason' | 'cancellationTerms'
> &
  Partial<Pick<CentreRow, 'approvedOn' | 'suspendedAt' | 'suspensionReason' | 'cancellationTerms'>>;

const SESSION_FIELDS: [string, (s: SessionColumns) => unknown][] = [
  ['centreId', (s) => s.centreId],
  ['courseNumber', (s) => s.courseNumber],
  ['day1', (s) => s.day1],
  ['day2', (s) => s.day2],
  ['startTime', (s) => s.startTime],
  ['endTime', (s) => s.endTime],
  ['priceEuros', (s) => s.priceCents / 100],
  ['capacity', (s) => s.capacity],
  ['spotsAvailable', (s) => s.spotsAvailable],
  ['status', (s) => s.status],
  ['declaredOn', (s) => s.declaredOn],
];

const CENTRE_FIELDS: [string, (c: CentreColumns) => unknown][] = (
  [
    'slug',
    'name',
    'address',
    'city',
    'postalCode',
    'deptCode',
    'lat',
    'lng',
    'agrementNumber',
    'email',
    'phone',
    'approvedOn',
    'cancellationTerms',
    'suspensionReason',
  ] as const
).map((key): [string, (c: CentreColumns) => unknown] => [key, (c: CentreColumns) => c[key]]);
// Suspended or not, as the admin API says it (the instant is the history row's own time).
CENTRE_FIELDS.push(['suspended', (c) => (c.suspendedAt === undefined ? undefined : c.suspendedAt !== null)]);

const text = (v: unknown) => (v === null || v === undefined ? null : String(v));

/**
 * The fields that differ. A new record (no `before`) is one entry, field `created`, whose new value
 * is the fields it was created with (JSON): an import of 5,000 new sessions writes 5,000 entries,
 * not 50,000 (measured in bench/micro/history-import.ts).
 */
function changesOf<T>(
  fields: [string, (r: T) => unknown][],
  before: T | undefined,
  after: T,
  where: Omit<Change, 'field' | 'oldValue' | 'newValue'>,
): Change[] {
  if (before === undefined) {
    const set = Object.fromEntries(
      fields.map(([field, read]) => [field, read(after) ?? null]).filter(([, v]) => v !== null),
    );
    return [{ ...where, field: 'created', oldValue: null, newValue: JSON.stringify(set) }];
  }
  const out: Change[] = [];
  for (const [field, read] of fields) {
    const value = read(after);
    if (value === undefined) continue; // a field this write does not set
    const oldValue = text(read(before));
    const newValue = text(value);
    if (oldValue !== newValue) out.push({ ...where, field, oldValue, newValue });
  }
  return out;
}

export function sessionChanges(id: string, before: SessionColumns | undefined, after: SessionColumns): Change[] {
  return changesOf(SESSION_FIELDS, before, after, { centreId: after.centreId, entity: 'session', entityId: id });
}

export function centreChanges(id: string, before: CentreColumns | undefined, after: CentreColumns): Change[] {
  return changesOf(CENTRE_FIELDS, before, after, { centreId: id, entity: 'centre', entityId: id });
}

/** A reservation's history is its status: never the person's name, email or phone. */
export function reservationStatusChange(
  r: { id: string; centreId: string },
  oldStatus: string,
  newStatus: string,
): Change[] {
  return oldStatus === newStatus
    ? []
    : [
        {
          centreId: r.centreId,
          entity: 'reservation',
          entityId: r.id,
          field: 'status',
          oldValue: oldStatus,
          newValue: newStatus,
        },
      ];
}
