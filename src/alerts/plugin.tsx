import type { FastifyInstance } from 'fastify';
import { onCatalogueWrite } from '../db/write.js';
import { sweepEvery } from '../jobs/sweep.js';
import { sendsMail } from '../mail/transport.js';
import type { FormGuard } from '../web/form-guard.js';
import { siteInfo } from '../web/layout.js';
import { alertErrorHandler } from './error-handler.js';
import { registerAlertMatching } from './match.js';
import { purgeAlerts } from './purge.js';
import { anyRunningAlert, recordFreedPlaces } from './record-freed-places.js';
import { alertRoutes } from './routes.js';

// An email, a session id or a search's few filters.
const FORM_BODY_LIMIT = 4 * 1024;
const PURGE_EVERY_MS = 3_600_000;

/**
 * "Prévenez-moi" alerts: the form's answer and the links' pages, the match on every catalogue
 * write that frees or adds places (a hook in its transaction, then a job), and the hourly purge.
 * Only where the service sends mail: an alert is nothing but emails (the forms show only then).
 */
export async function registerAlerts(app: FastifyInstance, options: { guard: FormGuard }): Promise<void> {
  if (!sendsMail(app.config.mail)) return;
  const site = siteInfo(app.config);
  const db = app.database.db;
  onCatalogueWrite(db, 'alerts', {
    wanted: () => anyRunningAlert(app.clock.now()),
    run: (tx) => recordFreedPlaces(tx, app.catalogue.snapshot),
  });
  registerAlertMatching(app, { baseUrl: site.baseUrl, platformName: site.name });

  sweepEvery(app, PURGE_EVERY_MS, (now) => purgeAlerts(db, now), 'alerts: could not delete ended alerts');

  await app.register(async (scope: FastifyInstance) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    // RFC 8058 lets a mail client send the one-click body as multipart/form-data: kept as text.
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_r, body, done) => done(null, body),
    );
    // The same readable pages as the booking form's (database away, body too long, too many requests).
    scope.setErrorHandler(alertErrorHandler(site));
    alertRoutes(scope, { app, site, guard: options.guard });
  });
}
