import type { SessionEntry } from '../catalogue/read-model.js';
import type { FormGuard } from '../web/form-guard.js';
import type { SiteInfo } from '../web/layout.js';
import type { BookingState } from './pages/booking-form.js';

/**
 * How a session page is rendered with the reservation form in a given state. The page is the
 * site's (it shows alternatives and articles the reservations know nothing of); the site hands
 * this function over when the reservations are registered (app.ts).
 */
export type SessionPageRenderer = (entry: SessionEntry, booking: BookingState) => string;

/** What each of the reservations' routes is given. */
export interface ReservationContext {
  site: SiteInfo;
  guard: FormGuard;
  /** False without SMTP_URL: no email goes out, and the pages say so. */
  mailEnabled: boolean;
  /** How people pay, shown on the reservation page and in the confirmation email. */
  paymentNote: string;
  renderSessionPage: SessionPageRenderer;
}
