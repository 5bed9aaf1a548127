import { approvalExpiresOn } from '../../catalogue/approval.js';
import { addDays } from '../../core/clock.js';
import type { centres, stageSessions } from '../../db/schema.js';
import type { AdminCentre, AdminSession } from '../response-schemas.js';
import type { CentreInput, SessionInput } from '../schemas.js';
import { placesOnSale } from './places-model.js';

/*
 * Stored rows ↔ the admin API's records: the view a caller reads, the column values an input
 * writes, and whether a write would change anything (an unchanged record keeps its updatedAt).
 */

export type CentreRow = typeof centres.$inferSelect;
export type SessionRow = typeof stageSessions.$inferSelect;

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
    approvedOn: row.approvedOn,
    approvalExpiresOn: row.approvedOn ? approvalExpiresOn(row.approvedOn) : null,
    cancellationTerms: row.cancellationTerms,
    suspended: row.suspendedAt !== null,
    suspendedAt: row.suspendedAt?.toISOString() ?? null,
    suspensionReason: row.suspensionReason,
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
    heldHere: row.heldHere,
    status: row.status as AdminSession['status'],
    declaredOn: row.declaredOn,
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
    // Omitted: the stored date stays (an import or a PUT that does not know it keeps it).
    ...(input.approvedOn === undefined ? {} : { approvedOn: input.approvedOn }),
    // The same for the terms: a write that does not name them (an older import, a form without them) keeps them.
    ...(input.cancellationTerms === undefined ? {} : { cancellationTerms: input.cancellationTerms }),
  };
}

/** The columns a session input writes, its places set against the bookings held here now (0 for a new session). */
export function sessionValues(input: SessionInput, heldNow = 0) {
  return {
    centreId: input.centreId,
    courseNumber: input.courseNumber,
    day1: input.day1,
    day2: input.day2 ?? addDays(input.day1, 1),
    startTime: input.startTime,
    endTime: input.endTime,
    priceCents: Math.round(input.priceEuros * 100),
    capacity: input.capacity,
    spotsAvailable: placesOnSale(input, heldNow),
    status: input.status,
    declaredOn: input.declaredOn ?? null,
  };
}

export type CentreValues = ReturnType<typeof centreValues>;
export type SessionValues = ReturnType<typeof sessionValues>;

/** Whether the stored row already holds every value (compared column by column). */
export function sameValues<V extends object>(row: V, values: Partial<V>): boolean {
  return (Object.keys(values) as (keyof V)[]).every((k) => row[k] === values[k]);
}

export function sameCentre(row: CentreRow, values: CentreValues): boolean {
  return sameValues(row, values);
}

export function sameSession(row: SessionRow, values: SessionValues): boolean {
  return sameValues(row, values);
}
