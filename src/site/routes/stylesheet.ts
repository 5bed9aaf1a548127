import { NOT_RATE_LIMITED } from '../../http/rate-limit.js';
import { STYLESHEET, STYLESHEET_PATH } from '../../web/stylesheet.js';
import type { SiteContext } from '../context.js';

/** GET the stylesheet, under a name carrying its hash: browsers keep it for a year. */
export function stylesheetRoute({ app }: SiteContext): void {
  app.get(STYLESHEET_PATH, { schema: { hide: true }, config: NOT_RATE_LIMITED }, async (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .send(STYLESHEET),
  );
}
