import type { ArticleLibrary } from '../../articles/articles.js';
import { sessionStatus } from '../../catalogue/session-status.js';
import { dateIn } from '../../core/clock.js';
import { sendsMail } from '../../mail/transport.js';
import type { SessionPageRenderer } from '../../reservations/context.js';
import { sessionAt, sessionPath } from '../../web/components.js';
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

/**
 * Renders a session page: its facts, and the reservation form while it is open, or its
 * alternatives. The reservations show it again, with their form as it was sent, when they refuse one.
 */
export function sessionPageRenderer({ app, site }: SiteContext, articles: ArticleLibrary): SessionPageRenderer {
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
    return renderPage(
      <SessionPage
        site={site}
        entry={entry}
        status={status}
        underway={status === 'past' && entry.record.day2 >= dateIn(now, entry.centre.timeZone)}
        alternatives={alternatives}
        articles={linkedArticles}
        path={sessionPath(entry.record.id)}
        booking={booking}
      />,
    );
  };
}

/** GET /stages/:id: a session's page, cached with a slot where each visitor's form token goes. */
export function sessionRoute({ app, page }: SiteContext, renderSessionPage: SessionPageRenderer): void {
  const mailEnabled = sendsMail(app.config.mail);
  app.get(
    '/stages/:id',
    { schema: { hide: true } },
    page((request) => {
      const { id } = request.params as { id: string };
      const entry = sessionAt(app.catalogue.snapshot, id);
      if (!entry) return undefined;
      // Its session and centre, or the alternatives it offers instead: its department and region.
      return { status: 200, html: renderSessionPage(entry, { mailEnabled }), scope: regionScope(entry) };
    }),
  );
}
