import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { REASONS } from '../reservations/form.js';
import {
  getReservation,
  listReservations,
  RESERVATION_STATUSES,
  type ReadScope,
  type ReservationRow,
  StatusRefused,
  setReservationStatus,
} from '../reservations/repository.js';
import { normaliseReference } from '../reservations/secrets.js';
import { uuidField } from './schemas.js';

const TAGS = ['admin'];
const SECURITY = [{ apiKey: [] }];
const blank = (v: unknown) => (v === '' ? undefined : v);

export const AdminReservationSchema = z
  .object({
    id: z.uuid(),
    reference: z.string().meta({ example: 'SRP-7K4Q-2M9X' }),
    sessionId: z.uuid(),
    centreId: z.uuid(),
    status: z.enum(RESERVATION_STATUSES),
    reason: z.enum(Object.keys(REASONS) as [keyof typeof REASONS, ...(keyof typeof REASONS)[]]),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable().describe('E.164, e.g. +33612345678.'),
    createdAt: z.iso.datetime(),
    confirmedAt: z.iso.datetime().nullable(),
    cancelledAt: z.iso.datetime().nullable(),
    cancelledBy: z.enum(['person', 'centre', 'operator']).nullable(),
    purgedAt: z.iso
      .datetime()
      .nullable()
      .describe('When its personal data was erased (reservations:purge); names, email and phone are then null.'),
  })
  .meta({ id: 'AdminReservation', description: 'A place booked on the site, with the person’s contact details.' });
type AdminReservation = z.infer<typeof AdminReservationSchema>;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function view(r: ReservationRow): AdminReservation {
  return {
    id: r.id,
    reference: r.reference,
    sessionId: r.sessionId,
    centreId: r.centreId,
    status: r.status as AdminReservation['status'],
    reason: r.reason as AdminReservation['reason'],
    firstName: r.firstName,
    lastName: r.lastName,
    email: r.email,
    phone: r.phone,
    createdAt: r.createdAt.toISOString(),
    confirmedAt: iso(r.confirmedAt),
    cancelledAt: iso(r.cancelledAt),
    cancelledBy: r.cancelledBy as AdminReservation['cancelledBy'],
    purgedAt: iso(r.purgedAt),
  };
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\.([0-9a-f-]{36})$/;

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
  limit: z.coerce
    .number({ error: 'limit must be an integer from 1 to 500' })
    .int({ error: 'limit must be an integer from 1 to 500' })
    .min(1, { error: 'limit must be an integer from 1 to 500' })
    .max(500, { error: 'limit must be an integer from 1 to 500' })
    .default(100),
  cursor: z.string().regex(CURSOR, { error: 'cursor must be the nextCursor of a previous page' }).optional(),
});

const auth = {
  401: problemResponse('No API key, or an unknown or revoked one (WWW-Authenticate says which).'),
  403: problemResponse('An agent access token: reservations are for the centre and the operator only.'),
  429: problemResponse('Rate limit of this API key (or, before authentication, of this address) reached.'),
};

function scopeOf(request: FastifyRequest): ReadScope {
  const identity = request.identity;
  return { centreId: identity.kind === 'apiKey' ? identity.centreId : null };
}

/**
 * The reservations made on the site, for the centre that receives them (a partner key sees its
 * own centre's only; another centre's reservation is a 404, not a 403, so ids reveal nothing) and
 * for the operator (an admin key sees all). Answers carry personal data: `Cache-Control: no-store`.
 */
export const reservationAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

  app.get(
    '/api/admin/reservations',
    {
      schema: {
        operationId: 'adminListReservations',
        summary: 'List reservations, newest first',
        description:
          'Filter by `sessionId`, `status` or `reference`; `limit` per page, and `nextCursor` as `cursor` for the next one. A partner key sees its own centre only.',
        tags: TAGS,
        security: SECURITY,
        querystring: ListQuery,
        response: {
          200: z.object({ data: z.array(AdminReservationSchema), nextCursor: z.string().nullable() }),
          400: problemResponse('Invalid parameters; `errors` names each one.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const cursor = q.cursor ? CURSOR.exec(q.cursor) : null;
      const rows = await listReservations(db, scopeOf(request), {
        sessionId: q.sessionId,
        status: q.status,
        reference: q.reference,
        before: cursor ? { createdAt: new Date(cursor[1] as string), id: cursor[2] as string } : undefined,
        limit: q.limit,
      });
      const last = rows.at(-1);
      const nextCursor = rows.length === q.limit && last ? `${last.cursorAt}.${last.id}` : null;
      return reply.header('cache-control', 'no-store').send({ data: rows.map(view), nextCursor });
    },
  );

  const IdParams = z.object({ id: uuidField('id') });

  app.get(
    '/api/admin/reservations/:id',
    {
      schema: {
        operationId: 'adminGetReservation',
        summary: 'Read a reservation',
        description:
          'One reservation by id, with the person’s details as given on the form; never cached. A partner key reads the reservations of its own centre only.',
        tags: TAGS,
        security: SECURITY,
        params: IdParams,
        response: {
          200: AdminReservationSchema,
          404: problemResponse('No reservation of yours has this id.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const row = await getReservation(db, request.params.id);
      const scope = scopeOf(request);
      if (!row || (scope.centreId !== null && row.centreId !== scope.centreId))
        return sendProblem(
          reply,
          problem(404, 'not_found', `No reservation of yours has the id ${request.params.id}.`),
        );
      return reply.header('cache-control', 'no-store').send(view(row));
    },
  );

  app.patch(
    '/api/admin/reservations/:id',
    {
      schema: {
        operationId: 'adminPatchReservation',
        summary: 'Confirm or cancel a reservation',
        description:
          '`{"status": "confirmed"}` or `{"status": "cancelled"}`. Cancelling gives the place back at once (every instance, the change stream). A cancelled reservation cannot be confirmed again (409). Setting the status it already has changes nothing.',
        tags: TAGS,
        security: SECURITY,
        params: IdParams,
        body: z
          .object({
            status: z.enum(['confirmed', 'cancelled'], { error: 'status must be confirmed or cancelled' }),
          })
          .strict(),
        response: {
          200: AdminReservationSchema,
          400: problemResponse('Invalid body; `errors` names each field.'),
          404: problemResponse('No reservation of yours has this id.'),
          409: problemResponse('The reservation is cancelled.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      try {
        const row = await setReservationStatus(db, request.params.id, request.body.status, scopeOf(request));
        if (request.body.status === 'cancelled') await app.catalogue.refresh();
        return reply.header('cache-control', 'no-store').send(view(row));
      } catch (err) {
        if (err instanceof StatusRefused) return sendProblem(reply, problem(err.status, err.code, err.message));
        throw err;
      }
    },
  );
};
