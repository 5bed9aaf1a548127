import type { VNode } from 'preact';
import type { ArticleLibrary } from '../../articles/articles.js';
import type { SessionEntry } from '../../catalogue/read-model.js';
import { sessionStatus } from '../../catalogue/session-status.js';
import { dateIn } from '../../core/clock.js';
import { sendsMail } from '../../mail/transport.js';
import type { SessionPageRenderer } from '../../reservations/context.js';
import type { BookingState } from '../../reservations/pages/booking-form.js';
import { sessionAt, sessionPath } from '../../web/components.js';
import { renderPageBytes } from '../../web/page-bytes.js';
import { renderPage } from '../../web/render.js';
import { nearbySessions, regionScope } from '../alternatives.js';
import type { SiteContext } from '../context.js';
import { SessionPage } from '../pages/session.js';

/** Articles the session page links to, by slug. */
const LINKED_ARTICLES = [
  'reserver-un-stage-etapes-et-documents',
  'deroulement-des-deux-jours-de-stage',
  'quand-les-points-sont-ils-credites',
];

/** A session page's element: its facts, and the reservation form while it is open, or its alternatives. */
export type SessionPageElement = (entry: SessionEntry, booking: BookingState) => VNode;

/** Makes session pages' elements, for the route (as bytes) and the reservations (as text). */
export function sessionPageElement({ app, site }: SiteContext, articles: ArticleLibrary): SessionPageElement {
  const linkedArticles = new Map(
    LINKED_ARTICLES.flatMap((slug) => {
      const a = articles.get(slug);
      return a ? [[slug, a.title] as const] : [];
    }),
  );
  return (entry, booking) => {
    const now = app.clock.now();
    const status = sessionStatus(entry, now);
    const alternatives = status === 'available' ? [] : nearbySessions(app.catalogue.snapshot, entry, now.getTime());
    return (
      <SessionPage
        site={site}
        entry={entry}
        status={status}
        underway={status === 'past' && entry.record.day2 >= dateIn(now, entry.centre.timeZone)}
        alternatives={alternatives}
        articles={linkedArticles}
        path={sessionPath(entry.record.id)}
        booking={booking}
      />
    );
  };
}

/**
 * Renders a session page. The reservations show it again, with their form as it was sent, when
 * they refuse one.
 */
export function sessionPageRenderer(element: SessionPageElement): SessionPageRenderer {
  return (entry, booking) => renderPage(element(entry, booking));
}

/** GET /stages/:id: a session's page, cached with a slot where each visitor's form token goes. */
export function sessionRoute({ app, page }: SiteContext, element: SessionPageElement): void {
  const mailEnabled = sendsMail(app.config.mail);
  app.get(
    '/stages/:id',
    { schema: { hide: true } },
    page((request) => {
      const { id } = request.params as { id: string };
      const entry = sessionAt(app.catalogue.snapshot, id);
      if (!entry) return undefined;
      // Its session and centre, or the alternatives it offers instead: its department and region.
      const body = renderPageBytes(element(entry, { mailEnabled }));
      return { status: 200, body, scope: regionScope(entry) };
    }),
  );
}
