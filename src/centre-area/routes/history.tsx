import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { departmentByCode } from '../../catalogue/geography.js';
import { instantOf, METROPOLITAN_TIME_ZONE } from '../../core/clock.js';
import type { Db } from '../../db/connect.js';
import { apiKeys, centres, reservations, stageSessions, users } from '../../db/schema.js';
import { HISTORY_ENTITIES, type HistoryEntity } from '../../history/changes.js';
import { listHistory } from '../../history/list.js';
import { siteInfo } from '../../web/layout.js';
import { privateHtml } from '../../web/private-page.js';
import { renderPage } from '../../web/render.js';
import { may, requirePart } from '../access.js';
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

/** What each kind of record's changes are shown to: a team's and keys' to whoever may use those parts. */
const PART_OF: Partial<Record<HistoryEntity, 'team' | 'keys'>> = { member: 'team', api_key: 'keys' };

/**
 * The centre's sessions, reservations, members and keys named by these ids: a session's date, a
 * reservation's reference, a member's email, a key's name.
 */
async function recordsOf(
  db: Db,
  centreId: string,
  ids: (entity: HistoryEntity) => string[],
): Promise<{
  sessions: Map<string, { day1: string; startTime: string }>;
  reservations: Map<string, string>;
  members: Map<string, string>;
  keys: Map<string, string>;
}> {
  const sessionIds = ids('session');
  const reservationIds = ids('reservation');
  const memberIds = ids('member');
  const keyIds = ids('api_key');
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
  const people = memberIds.length
    ? await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, memberIds))
    : [];
  const named = keyIds.length
    ? await db
        .select({ id: apiKeys.id, name: apiKeys.name })
        .from(apiKeys)
        .where(and(eq(apiKeys.centreId, centreId), inArray(apiKeys.id, keyIds)))
    : [];
  return {
    sessions: new Map(sessions.map((s) => [s.id, { day1: s.day1, startTime: s.startTime }])),
    reservations: new Map(booked.map((r) => [r.id, r.reference])),
    members: new Map(people.map((p) => [p.id, p.email])),
    keys: new Map(named.map((k) => [k.id, k.name])),
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
    // Staff do not see the team's and the keys' changes: those parts are the owner's (ROLE_MATRIX).
    const entities = HISTORY_ENTITIES.filter((e) => {
      const part = PART_OF[e];
      return part === undefined || may(membership.role, part);
    });
    const rows = await listHistory(db, { centreId, entities, before, limit: HISTORY_PAGE_SIZE });
    const ids = (entity: HistoryEntity) => [...new Set(rows.filter((r) => r.entity === entity).map((r) => r.entityId))];
    const records = await recordsOf(db, centreId, ids);
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
          {...records}
          next={next}
          older={before !== undefined}
        />,
      ),
    );
  });
}
