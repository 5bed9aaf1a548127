import type { FastifyInstance } from 'fastify';
import { sendsMail } from '../mail/transport.js';
import type { FormGuard } from '../web/form-guard.js';
import { siteInfo } from '../web/layout.js';
import type { ReservationContext, SessionPageRenderer } from './context.js';
import { reservationErrorHandler } from './error-handler.js';
import { registerReminders } from './reminder.js';
import { bookingRoute } from './routes/booking.js';
import { holdPageRoute } from './routes/hold-page.js';
import { privateLinkRoutes } from './routes/private-link.js';

// A form of six short fields; anything bigger is not from our page.
const FORM_BODY_LIMIT = 8 * 1024;

export interface ReservationOptions {
  /** The site's session page, where a refused form is shown again (see SessionPageRenderer). */
  renderSessionPage: SessionPageRenderer;
  /** The guard whose token the session page's form carries (the site's). */
  guard: FormGuard;
}

/**
 * Reservations on the site: the session page's form is posted here, and each reservation has a
 * private page where it can be cancelled; a booking's emails go to the outbox (src/mail/) in its
 * transaction. Encapsulated: its body parser and its error pages apply to these routes only.
 */
export async function registerReservations(app: FastifyInstance, options: ReservationOptions): Promise<void> {
  const site = siteInfo(app.config);
  const context: ReservationContext = {
    site,
    guard: options.guard,
    mailEnabled: sendsMail(app.config.mail),
    paymentNote: app.config.reservations.paymentNote,
    renderSessionPage: options.renderSessionPage,
  };
  // The reminder two days before a course: sent through the outbox, so only where mail is set up.
  if (context.mailEnabled) registerReminders(app, site.name);
  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    scope.setErrorHandler(reservationErrorHandler(site));
    bookingRoute(scope, context);
    holdPageRoute(scope, context);
    privateLinkRoutes(scope, context);
  });
}
