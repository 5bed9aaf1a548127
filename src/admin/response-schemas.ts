import { z } from 'zod';
import { REASONS } from '../reservations/form.js';
import { RESERVATION_STATUSES, type ReservationRow } from '../reservations/repository.js';
import { SESSION_STATUS } from './schemas.js';

/* What the admin API answers: centres, sessions, reservations and import results. */

export const AdminCentreSchema = z
  .object({
    id: z.uuid(),
    slug: z.string(),
    name: z.string(),
    address: z.string(),
    city: z.string(),
    postalCode: z.string(),
    deptCode: z.string(),
    lat: z.number(),
    lng: z.number(),
    agrementNumber: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    approvedOn: z.iso.date().nullable().describe("The prefectoral approval's day, when recorded."),
    approvalExpiresOn: z.iso
      .date()
      .nullable()
      .describe('approvedOn 5 years on: from this day (in the centre’s zone) the centre is in no public answer.'),
    cancellationTerms: z
      .string()
      .nullable()
      .describe(
        'The centre’s cancellation and refund terms (plain text, line breaks kept), shown to people who book; null: none set.',
      ),
    suspended: z.boolean().describe('True while an operator has suspended the centre: it is in no public answer.'),
    suspendedAt: z.iso.datetime({ offset: true }).nullable(),
    suspensionReason: z.string().nullable(),
    updatedAt: z.iso.datetime({ offset: true }).describe('Time of the last change.'),
  })
  .meta({ id: 'AdminCentre', description: 'A centre as stored, private contact details included.' });

export const AdminSessionSchema = z
  .object({
    id: z.uuid(),
    centreId: z.uuid(),
    courseNumber: z.string(),
    day1: z.iso.date(),
    day2: z.iso.date(),
    startTime: z.string(),
    endTime: z.string(),
    priceEuros: z.number(),
    capacity: z.int(),
    spotsAvailable: z.int().min(0).describe('Places on sale now.'),
    heldHere: z
      .int()
      .min(0)
      .describe(
        'Places held by bookings made here (reservations not cancelled). Send it back with spotsAvailable when you write the figure you read.',
      ),
    status: SESSION_STATUS,
    declaredOn: z.iso
      .date()
      .nullable()
      .describe('The day the course was declared to the prefecture; null when the centre has not said.'),
    updatedAt: z.iso.datetime({ offset: true }).describe('Time of the last change.'),
  })
  .meta({ id: 'AdminSession', description: 'A session as stored: past, full and cancelled ones included.' });

export type AdminSession = z.output<typeof AdminSessionSchema>;
export type AdminCentre = z.output<typeof AdminCentreSchema>;

export const AdminReservationSchema = z
  .object({
    id: z.uuid(),
    reference: z.string().meta({ example: 'SRP-7K4Q-2M9X' }),
    sessionId: z.uuid(),
    centreId: z.uuid(),
    status: z.enum(RESERVATION_STATUSES),
    reason: z.enum(Object.keys(REASONS) as [keyof typeof REASONS, ...(keyof typeof REASONS)[]]),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable().describe('E.164, e.g. +33612345678.'),
    createdAt: z.iso.datetime(),
    confirmedAt: z.iso.datetime().nullable(),
    cancelledAt: z.iso.datetime().nullable(),
    cancelledBy: z.enum(['person', 'centre', 'operator']).nullable(),
    purgedAt: z.iso
      .datetime()
      .nullable()
      .describe('When its personal data was erased (reservations:purge); names, email and phone are then null.'),
  })
  .meta({ id: 'AdminReservation', description: 'A place booked on the site, with the person’s contact details.' });
export type AdminReservation = z.infer<typeof AdminReservationSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A stored reservation as the admin API answers it. */
export function reservationView(r: ReservationRow): AdminReservation {
  return {
    id: r.id,
    reference: r.reference,
    sessionId: r.sessionId,
    centreId: r.centreId,
    status: r.status as AdminReservation['status'],
    reason: r.reason as AdminReservation['reason'],
    firstName: r.firstName,
    lastName: r.lastName,
    email: r.email,
    phone: r.phone,
    createdAt: r.createdAt.toISOString(),
    confirmedAt: iso(r.confirmedAt),
    cancelledAt: iso(r.cancelledAt),
    cancelledBy: r.cancelledBy as AdminReservation['cancelledBy'],
    purgedAt: iso(r.purgedAt),
  };
}

const CountsSchema = z.object({ created: z.int(), updated: z.int(), unchanged: z.int() });

export const ImportResultSchema = z
  .object({ dryRun: z.boolean(), centres: CountsSchema, sessions: CountsSchema })
  .meta({ id: 'ImportResult', description: 'What the import wrote (or, with dryRun, would write).' });
