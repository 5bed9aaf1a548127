import { firstUpcoming } from '../../catalogue/session-status.js';
import { centrePath } from '../../web/components.js';
import { renderPageBytes } from '../../web/page-bytes.js';
import type { SiteContext } from '../context.js';
import { CentrePage } from '../pages/centre.js';
import { existingPage, pageNumber } from '../paging.js';

/** GET /centres/:slug: a centre and its coming sessions, full ones included, a page at a time. */
export function centreRoute({ app, site, page }: SiteContext): void {
  app.get(
    '/centres/:slug',
    { schema: { hide: true } },
    page((request) => {
      const { slug } = request.params as { slug: string };
      const snapshot = app.catalogue.snapshot;
      const centre = snapshot.centresBySlug.get(slug);
      const p = pageNumber((request.query as Record<string, unknown>).page);
      if (!centre || p === undefined) return undefined;
      const all = snapshot.sessionsByCentre.get(centre.view.id) ?? [];
      const found = existingPage(all, p, firstUpcoming(all, app.clock.now().getTime()));
      if (!found) return undefined;
      const body = renderPageBytes(
        <CentrePage
          site={site}
          centre={centre}
          entries={found.entries}
          page={p}
          hasNext={found.hasNext}
          path={centrePath(centre.view.slug)}
        />,
      );
      // The centre and its sessions: any change to them changes its department's version.
      return { status: 200, body, scope: { depts: [centre.view.deptCode], centres: false } };
    }),
  );
}
