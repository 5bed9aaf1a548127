import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isDay } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { actorOf } from '../../history/actor.js';
import { problemResponse } from '../../http/problem.js';
import { etagOf } from '../repository/etag.js';
import { getSession, listSessions, patchSession, putSession } from '../repository/sessions.js';
import { AdminSessionSchema } from '../response-schemas.js';
import { SESSION_STATUSES, SessionInputSchema, SessionPatchSchema, uuidField } from '../schemas.js';
import { blank, cursorQuery, dateQuery, limitQuery } from './query.js';
import { ADMIN_SECURITY, auth, IdParams, ifMatch, scopeOf, TAGS, unreachable, withinReach } from './shared.js';

const ListQuery = z.object({
  centreId: z.preprocess(blank, uuidField('centreId').optional()),
  from: dateQuery('from'),
  to: dateQuery('to'),
  status: z.preprocess(blank, z.enum(SESSION_STATUSES, { error: 'status must be scheduled or cancelled' }).optional()),
  limit: limitQuery(1000, 100),
  cursor: cursorQuery((day) => (isDay(day) ? day : undefined)),
});

/** A patched session is checked like a whole one: each zod issue names its field. */
export function validateMerged(merged: Record<string, unknown>) {
  const parsed = SessionInputSchema.safeParse(merged);
  return parsed.success
    ? []
    : parsed.error.issues.map((i) => ({ name: String(i.path[0] ?? 'body'), reason: i.message }));
}

const listSchema = {
  operationId: 'adminListSessions',
  summary: 'List sessions: past, full and cancelled included',
  description:
    'In (day1, id) order, `limit` per page; pass `nextCursor` as `cursor` for the next page. A partner key sees its own centre only.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  querystring: ListQuery,
  response: {
    200: z.object({ data: z.array(AdminSessionSchema), nextCursor: z.string().nullable() }),
    400: problemResponse('Invalid parameters; `errors` names each one.'),
    ...auth,
  },
};

const getSchema = {
  operationId: 'adminGetSession',
  summary: 'Read a session as stored, with its ETag',
  description:
    'The session as stored (cancelled and past ones too), with its ETag for a conditional PUT or PATCH (If-Match). A partner key reads the sessions of its own centre only.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  params: IdParams,
  response: { 200: AdminSessionSchema, 404: problemResponse('No session has this id.'), ...auth },
};

const putSchema = {
  operationId: 'adminPutSession',
  summary: 'Create or replace a session',
  description:
    'day2 is the day after day1 (it may be omitted); neither day is a Sunday or a public holiday; endTime after startTime; spotsAvailable at most capacity (6 to 20); a session created or moved less than 10 calendar days before day1 carries declaredOn, at least 10 days before day1 (the prefecture rule). A partner key writes its own centre only. If-Match makes the write conditional.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  params: IdParams,
  body: SessionInputSchema,
  response: {
    200: AdminSessionSchema,
    201: AdminSessionSchema,
    400: problemResponse('Invalid fields; `errors` names each one.'),
    409: problemResponse('courseNumber already belongs to another session.'),
    412: problemResponse('If-Match does not match the current ETag.'),
    422: problemResponse(
      '`prefecture_declaration`: the session starts in fewer than 10 calendar days and declaredOn is missing or later than 10 days before day1, or declaredOn is in the future.',
    ),
    ...auth,
  },
};

const patchSchema = {
  operationId: 'adminPatchSession',
  summary: 'Change price, places, capacity, times, or cancel',
  description:
    '`"status": "cancelled"` takes the session out of search at once; check_availability then says it was cancelled.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  params: IdParams,
  body: SessionPatchSchema,
  response: {
    200: AdminSessionSchema,
    400: problemResponse('Invalid fields; `errors` names each one.'),
    404: problemResponse('No session has this id.'),
    412: problemResponse('If-Match does not match the current ETag.'),
    422: problemResponse(
      '`prefecture_declaration`: the new declaredOn is in the future, or later than 10 days before day1 of a session starting in fewer than 10 calendar days.',
    ),
    ...auth,
  },
};

/** /api/admin/sessions and /api/admin/sessions/{id}: list, read, create or replace, change. */
export const sessionRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

  app.get('/api/admin/sessions', { schema: listSchema }, async (request, reply) => {
    const scope = scopeOf(request);
    const q = request.query;
    if (scope.centreId !== null && q.centreId !== undefined && q.centreId !== scope.centreId)
      throw new DomainError(403, 'forbidden', "A partner key may only list its own centre's sessions.");
    const data = await listSessions(db, {
      centreId: scope.centreId ?? q.centreId,
      from: q.from,
      to: q.to,
      status: q.status,
      after: q.cursor ? { day1: q.cursor.key, id: q.cursor.id } : undefined,
      limit: q.limit,
    });
    const last = data.at(-1);
    const nextCursor = data.length === q.limit && last ? `${last.day1}.${last.id}` : null;
    return reply.header('cache-control', 'no-store').send({ data, nextCursor });
  });

  app.get('/api/admin/sessions/:id', { schema: getSchema }, async (request, reply) => {
    const session = await getSession(db, request.params.id);
    const scope = scopeOf(request);
    if (!session || (scope.centreId !== null && session.centreId !== scope.centreId))
      throw unreachable(request, 'session', request.params.id);
    return reply.header('etag', etagOf(session)).header('cache-control', 'no-store').send(session);
  });

  app.put('/api/admin/sessions/:id', { schema: putSchema }, async (request, reply) => {
    // The answer waits until this instance serves the change, so that the writer reads its own write.
    const { created, session } = await app.catalogue.served((told) =>
      putSession(
        db,
        request.params.id,
        request.body,
        scopeOf(request),
        ifMatch(request),
        app.clock,
        actorOf(request.identity),
        told,
      ),
    );
    return reply
      .code(created ? 201 : 200)
      .header('etag', etagOf(session))
      .send(session);
  });

  app.patch('/api/admin/sessions/:id', { schema: patchSchema }, async (request, reply) => {
    const { id } = request.params;
    const session = await withinReach(
      request,
      'session',
      id,
      app.catalogue.served((told) =>
        patchSession(
          db,
          id,
          request.body,
          scopeOf(request),
          ifMatch(request),
          validateMerged,
          app.clock,
          actorOf(request.identity),
          told,
        ),
      ),
    );
    return reply.header('etag', etagOf(session)).send(session);
  });
};
