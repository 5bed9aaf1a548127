import type { reservations } from '../../db/schema.js';
import type { Tx } from '../../db/write.js';
import type { ReservationDetails } from '../form.js';

export type ReservationRow = typeof reservations.$inferSelect;
export type ReservationStatus = 'pending' | 'confirmed' | 'cancelled';
export const RESERVATION_STATUSES = ['pending', 'confirmed', 'cancelled'] as const;

export type BookingOutcome =
  /** A place was taken and the reservation stored; `token` is its private link's secret. */
  | { kind: 'booked'; reservation: ReservationRow; token: string }
  /** This browser already booked this session with this address: a fresh link to that reservation. */
  | { kind: 'again'; reservation: ReservationRow; token: string }
  /** Someone (another browser) already booked this session with this address. */
  | { kind: 'duplicate' }
  /** No place left. */
  | { kind: 'full' }
  /** Cancelled, begun, or no longer in the catalogue. */
  | { kind: 'closed' };

export interface BookingRequest {
  sessionId: string;
  details: ReservationDetails;
  /** The form cookie of the booking browser (its hash is stored). */
  browser: string;
  /**
   * The service's clock (app.clock): a session takes bookings until it begins at this time, the
   * instant the page that showed the form and every list go by, so that they never disagree.
   */
  now: Date;
  /** The hold (completeUrl's `hold`) whose place this booking takes, if it is still held. */
  holdId?: string | undefined;
  /**
   * Runs in the booking's transaction once the place is taken and the reservation stored (its
   * emails go to the outbox there); throwing undoes the booking.
   */
  onBooked?: (tx: Tx, booked: { reservation: ReservationRow; token: string }) => Promise<void>;
}
