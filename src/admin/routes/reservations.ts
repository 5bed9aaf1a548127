import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { instantOf } from '../../core/clock.js';
import { actorOf } from '../../history/actor.js';
import { problemResponse } from '../../http/problem.js';
import {
  getReservation,
  listReservations,
  RESERVATION_STATUSES,
  setReservationStatus,
} from '../../reservations/repository.js';
import { normaliseReference } from '../../reservations/secrets.js';
import { AdminReservationSchema, reservationView } from '../response-schemas.js';
import { uuidField } from '../schemas.js';
import { blank, cursorQuery, limitQuery } from './query.js';
import { ADMIN_SECURITY, authResponses, IdParams, scopeOf, TAGS, unreachable, withinReach } from './shared.js';

const ListQuery = z.object({
  sessionId: z.preprocess(blank, uuidField('sessionId').optional()),
  status: z.preprocess(
    blank,
    z.enum(RESERVATION_STATUSES, { error: 'status must be pending, confirmed or cancelled' }).optional(),
  ),
  reference: z.preprocess(
    blank,
    z
      .string()
      .transform((v, ctx) => {
        const ref = normaliseReference(v);
        if (!ref) ctx.addIssue({ code: 'custom', message: 'reference must look like SRP-7K4Q-2M9X' });
        return ref ?? z.NEVER;
      })
      .optional(),
  ),
  limit: limitQuery(500, 100),
  cursor: cursorQuery(instantOf),
});

const auth = authResponses(
  'An agent access token (reservations are for the centre and the operator only), or a partner key and an id that is not of its centre (another centre’s, or nobody’s).',
);

const listSchema = {
  operationId: 'adminListReservations',
  summary: 'List reservations, newest first',
  description:
    'Filter by `sessionId`, `status` or `reference`; `limit` per page, and `nextCursor` as `cursor` for the next one. A partner key sees its own centre only.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  querystring: ListQuery,
  response: {
    200: z.object({ data: z.array(AdminReservationSchema), nextCursor: z.string().nullable() }),
    400: problemResponse('Invalid parameters; `errors` names each one.'),
    ...auth,
  },
};

const getSchema = {
  operationId: 'adminGetReservation',
  summary: 'Read a reservation',
  description:
    'One reservation by id, with the person’s details as given on the form; never cached. A partner key reads the reservations of its own centre only.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  params: IdParams,
  response: {
    200: AdminReservationSchema,
    404: problemResponse('No reservation has this id (operator key).'),
    ...auth,
  },
};

const patchSchema = {
  operationId: 'adminPatchReservation',
  summary: 'Confirm or cancel a reservation',
  description:
    '`{"status": "confirmed"}` or `{"status": "cancelled"}`. Cancelling gives the place back at once (every instance, the change stream). A cancelled reservation cannot be confirmed again (409). Setting the status it already has changes nothing.',
  tags: TAGS,
  security: ADMIN_SECURITY,
  params: IdParams,
  body: z
    .object({
      status: z.enum(['confirmed', 'cancelled'], { error: 'status must be confirmed or cancelled' }),
    })
    .strict(),
  response: {
    200: AdminReservationSchema,
    400: problemResponse('Invalid body; `errors` names each field.'),
    404: problemResponse('No reservation has this id (operator key).'),
    409: problemResponse('The reservation is cancelled.'),
    ...auth,
  },
};

/**
 * The reservations made on the site, for the centre that receives them (a partner key sees its
 * own centre's only; another centre's reservation and a missing one are the same 403, so ids
 * reveal nothing) and
 * for the operator (an admin key sees all). Answers carry personal data: `Cache-Control: no-store`.
 */
export const reservationAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

  app.get('/api/admin/reservations', { schema: listSchema }, async (request, reply) => {
    const q = request.query;
    const rows = await listReservations(db, scopeOf(request), {
      sessionId: q.sessionId,
      status: q.status,
      reference: q.reference,
      before: q.cursor ? { createdAt: q.cursor.key, id: q.cursor.id } : undefined,
      limit: q.limit,
    });
    const last = rows.at(-1);
    const nextCursor = rows.length === q.limit && last ? `${last.cursorAt}.${last.id}` : null;
    return reply.header('cache-control', 'no-store').send({ data: rows.map(reservationView), nextCursor });
  });

  app.get('/api/admin/reservations/:id', { schema: getSchema }, async (request, reply) => {
    const row = await getReservation(db, request.params.id);
    const scope = scopeOf(request);
    if (!row || (scope.centreId !== null && row.centreId !== scope.centreId))
      throw unreachable(request, 'reservation', request.params.id);
    return reply.header('cache-control', 'no-store').send(reservationView(row));
  });

  app.patch('/api/admin/reservations/:id', { schema: patchSchema }, async (request, reply) => {
    const { id } = request.params;
    const change = setReservationStatus(db, id, request.body.status, scopeOf(request), actorOf(request.identity));
    const row = await withinReach(request, 'reservation', id, change);
    if (request.body.status === 'cancelled') await app.catalogue.refresh();
    return reply.header('cache-control', 'no-store').send(reservationView(row));
  });
};
