import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { instantOf } from '../../admin/routes/query.js';
import { departmentByCode } from '../../catalogue/geography.js';
import { METROPOLITAN_TIME_ZONE } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import { centres, reservations, stageSessions } from '../../db/schema.js';
import { listHistory } from '../../history/list.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { requirePart } from '../access.js';
import { areaUser } from '../context.js';
import { HistoryPage, historyPath } from '../history-page.js';

/** Changes a page. */
export const HISTORY_PAGE_SIZE = 50;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The `avant` parameter: the API's cursor (`<instant>.<id>`), or undefined when it is not one. */
function cursorOf(text: unknown): { at: Date; id: string } | undefined {
  if (typeof text !== 'string') return undefined;
  const dot = text.lastIndexOf('.');
  const at = dot > 0 ? instantOf(text.slice(0, dot)) : undefined;
  const id = text.slice(dot + 1).toLowerCase();
  return at && UUID.test(id) ? { at, id } : undefined;
}

/** The centre's sessions and reservations named by these ids: their date, their reference. */
async function recordsOf(db: Db, centreId: string, sessionIds: string[], reservationIds: string[]) {
  const sessions = sessionIds.length
    ? await db
        .select({ id: stageSessions.id, day1: stageSessions.day1, startTime: stageSessions.startTime })
        .from(stageSessions)
        .where(and(eq(stageSessions.centreId, centreId), inArray(stageSessions.id, sessionIds)))
    : [];
  const booked = reservationIds.length
    ? await db
        .select({ id: reservations.id, reference: reservations.reference })
        .from(reservations)
        .where(and(eq(reservations.centreId, centreId), inArray(reservations.id, reservationIds)))
    : [];
  return {
    sessions: new Map(sessions.map((s) => [s.id, { day1: s.day1, startTime: s.startTime }])),
    reservations: new Map(booked.map((r) => [r.id, r.reference])),
  };
}

/**
 * The centre's history (ROLE_MATRIX.history): GET /api/admin/history's function limited to this
 * centre, newest first, HISTORY_PAGE_SIZE a page, `avant` being the API's cursor. Each change says
 * when (in the centre's zone), who, what (a session by its date, a reservation by its reference:
 * never a person's name or contact), the field in French and old → new.
 */
export function historyRoute(app: FastifyInstance): void {
  const db = app.database.db;
  const site = siteInfo(app.config);

  app.get('/espace-centre/centres/:centreId/historique', { schema: { hide: true } }, async (request, reply) => {
    const { centreId } = request.params as { centreId: string };
    const membership = requirePart(request, reply, areaUser(request), centreId, 'history');
    if (!membership) return reply;
    const query = request.query as Record<string, unknown>;
    const before = cursorOf(query.avant);
    // A cursor that is not one: the newest page, as a link from an old bookmark would expect.
    if (query.avant !== undefined && !before)
      return reply.header('cache-control', 'no-store').redirect(historyPath(centreId), 303);
    const rows = await listHistory(db, { centreId, before, limit: HISTORY_PAGE_SIZE });
    const ids = (entity: string) => [...new Set(rows.filter((r) => r.entity === entity).map((r) => r.entityId))];
    const { sessions, reservations: booked } = await recordsOf(db, centreId, ids('session'), ids('reservation'));
    const [centre] = await db.select({ deptCode: centres.deptCode }).from(centres).where(eq(centres.id, centreId));
    const timeZone = (centre && departmentByCode(centre.deptCode)?.timeZone) ?? METROPOLITAN_TIME_ZONE;
    const last = rows.at(-1);
    const next = rows.length === HISTORY_PAGE_SIZE && last ? `${last.cursorAt}.${last.id}` : undefined;
    return privateHtml(
      reply,
      200,
      renderPage(
        <HistoryPage
          site={site}
          membership={membership}
          timeZone={timeZone}
          rows={rows}
          sessions={sessions}
          reservations={booked}
          next={next}
          older={before !== undefined}
        />,
      ),
    );
  });
}
