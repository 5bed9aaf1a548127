import { REASONS, type Reason } from './form.js';
import { displayPhone } from './phone.js';
import type { ReservationRow, ReservationStatus } from './repository.js';

/** What a reservation's private page shows of it: its row, read in this one place. */
export interface ReservationView {
  reference: string;
  status: ReservationStatus;
  /** Cancelled by the centre (not by the person or the operator): the page says so. */
  cancelledByCentre: boolean;
  /** Where the confirmation email goes; none once the personal data is erased. */
  email: string | undefined;
  /** Who booked, worded for the page; absent once the personal data is erased. */
  person: { name: string; email: string; phone: string; reason: string } | undefined;
}

export function reservationView(row: ReservationRow): ReservationView {
  return {
    reference: row.reference,
    status: row.status as ReservationStatus,
    cancelledByCentre: row.status === 'cancelled' && row.cancelledBy === 'centre',
    email: row.email ?? undefined,
    person:
      row.firstName === null
        ? undefined
        : {
            name: `${row.firstName} ${row.lastName ?? ''}`,
            email: row.email ?? '',
            phone: row.phone ? displayPhone(row.phone) : '',
            reason: REASONS[row.reason as Reason] ?? '',
          },
  };
}
