import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { registerAdminAuth } from './auth.js';
import { type ImportFormat, ImportRefused, importBatch, parseImport } from './import.js';
import {
  changePlaces,
  etagOf,
  getCentre,
  getSession,
  listSessions,
  patchSession,
  putCentre,
  putSession,
  WriteRefused,
  type WriteScope,
} from './repository.js';
import { reservationAdminRoutes } from './reservations.js';
import {
  AdminCentreSchema,
  AdminSessionSchema,
  CentreInputSchema,
  PlacesChangeSchema,
  SESSION_STATUSES,
  SessionInputSchema,
  SessionPatchSchema,
  uuidField,
} from './schemas.js';

export const ADMIN_SECURITY = [{ apiKey: [] }];
const TAGS = ['admin'];

const IdParams = z.object({ id: uuidField('id') });
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const ListQuery = z.object({
  centreId: z.preprocess((v) => (v === '' ? undefined : v), uuidField('centreId').optional()),
  from: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.iso.date({ error: 'from must be a date YYYY-MM-DD' }).optional(),
  ),
  to: z.preprocess((v) => (v === '' ? undefined : v), z.iso.date({ error: 'to must be a date YYYY-MM-DD' }).optional()),
  status: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(SESSION_STATUSES, { error: 'status must be scheduled or cancelled' }).optional(),
  ),
  limit: z.coerce
    .number({ error: 'limit must be an integer from 1 to 1000' })
    .int({ error: 'limit must be an integer from 1 to 1000' })
    .min(1, { error: 'limit must be an integer from 1 to 1000' })
    .max(1000, { error: 'limit must be an integer from 1 to 1000' })
    .default(100),
  cursor: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}\.[0-9a-f-]{36}$/, { error: 'cursor must be the nextCursor of a previous page' })
    .optional(),
});

const ImportQuery = z.object({
  dryRun: z
    .enum(['true', 'false', '1', '0', ''], { error: 'dryRun must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

const CountsSchema = z.object({ created: z.int(), updated: z.int(), unchanged: z.int() });
const ImportResultSchema = z
  .object({ dryRun: z.boolean(), centres: CountsSchema, sessions: CountsSchema })
  .meta({ id: 'ImportResult', description: 'What the import wrote (or, with dryRun, would write).' });

const auth = {
  401: problemResponse('No API key, or an unknown or revoked one (WWW-Authenticate says which).'),
  403: problemResponse('An agent access token, or a partner key outside its own centre.'),
  429: problemResponse('Rate limit of this API key (or, before authentication, of this address) reached.'),
};

function scopeOf(request: FastifyRequest): WriteScope {
  const identity = request.identity;
  return { centreId: identity.kind === 'apiKey' ? identity.centreId : null };
}

function refuse(reply: FastifyReply, err: unknown): FastifyReply {
  if (err instanceof WriteRefused)
    return sendProblem(reply, problem(err.status, err.code, err.message, err.errors ? { errors: err.errors } : {}));
  throw err;
}

/**
 * The operator and partner API: centres and sessions in, with validation that names each bad
 * field, optimistic concurrency (ETag / If-Match), atomic place changes with Idempotency-Key, and
 * all-or-nothing imports. Every committed write is applied to this instance's read model before
 * the answer (the writer reads its own write), and reaches every other instance through the change
 * log within about a second.
 */
export const adminRoutes: FastifyPluginAsyncZod = async (app) => {
  registerAdminAuth(app);
  const db = app.database.db;
  // The answer waits until this instance serves the change, so that the writer reads its own write.
  const served = () => app.catalogue.refresh();

  for (const type of ['application/x-ndjson', 'application/ndjson', 'text/csv']) {
    app.addContentTypeParser(type, { parseAs: 'string', bodyLimit: app.config.importMaxBytes }, (_req, body, done) =>
      done(null, body),
    );
  }

  await app.register(reservationAdminRoutes);

  const requireAdmin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.identity.kind === 'apiKey' && request.identity.role !== 'admin')
      return sendProblem(reply, problem(403, 'forbidden', 'Only an operator key (role admin) may do this.'));
  };

  app.get(
    '/api/admin/centres/:id',
    {
      schema: {
        operationId: 'adminGetCentre',
        summary: 'Read a centre, private contact details included',
        description:
          'The centre as stored, with its ETag for a conditional PUT (If-Match). A partner key reads its own centre only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        response: { 200: AdminCentreSchema, 404: problemResponse('No centre has this id.'), ...auth },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      if (scope.centreId !== null && scope.centreId !== request.params.id)
        return sendProblem(reply, problem(403, 'forbidden', 'A partner key may only read its own centre.'));
      const centre = await getCentre(db, request.params.id);
      if (!centre) return sendProblem(reply, problem(404, 'not_found', `No centre has the id ${request.params.id}.`));
      return reply.header('etag', etagOf(centre)).header('cache-control', 'no-store').send(centre);
    },
  );

  app.put(
    '/api/admin/centres/:id',
    {
      preHandler: requireAdmin,
      schema: {
        operationId: 'adminPutCentre',
        summary: 'Create or replace a centre (operator key)',
        description:
          'The department must be known, the postal code must serve one of its communes, the coordinates must lie in it, and the approval number must carry its code. slug and agrementNumber are unique. If-Match makes the write conditional on the ETag you read.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        body: CentreInputSchema,
        response: {
          200: AdminCentreSchema,
          201: AdminCentreSchema,
          400: problemResponse('Invalid fields; `errors` names each one.'),
          409: problemResponse('slug or agrementNumber already belongs to another centre.'),
          412: problemResponse('If-Match does not match the current ETag.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      try {
        const { created, centre } = await putCentre(db, request.params.id, request.body, ifMatch(request));
        await served();
        return reply
          .code(created ? 201 : 200)
          .header('etag', etagOf(centre))
          .send(centre);
      } catch (err) {
        return refuse(reply, err);
      }
    },
  );

  app.get(
    '/api/admin/sessions',
    {
      schema: {
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
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const q = request.query;
      if (scope.centreId !== null && q.centreId !== undefined && q.centreId !== scope.centreId)
        return sendProblem(reply, problem(403, 'forbidden', "A partner key may only list its own centre's sessions."));
      const [day1, id] = q.cursor ? (q.cursor.split('.') as [string, string]) : [];
      const data = await listSessions(db, {
        centreId: scope.centreId ?? q.centreId,
        from: q.from,
        to: q.to,
        status: q.status,
        after: day1 && id ? { day1, id } : undefined,
        limit: q.limit,
      });
      const last = data.at(-1);
      const nextCursor = data.length === q.limit && last ? `${last.day1}.${last.id}` : null;
      return reply.header('cache-control', 'no-store').send({ data, nextCursor });
    },
  );

  app.get(
    '/api/admin/sessions/:id',
    {
      schema: {
        operationId: 'adminGetSession',
        summary: 'Read a session as stored, with its ETag',
        description:
          'The session as stored (cancelled and past ones too), with its ETag for a conditional PUT or PATCH (If-Match). A partner key reads the sessions of its own centre only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        response: { 200: AdminSessionSchema, 404: problemResponse('No session has this id.'), ...auth },
      },
    },
    async (request, reply) => {
      const session = await getSession(db, request.params.id);
      if (!session) return sendProblem(reply, problem(404, 'not_found', `No session has the id ${request.params.id}.`));
      const scope = scopeOf(request);
      if (scope.centreId !== null && session.centreId !== scope.centreId)
        return sendProblem(reply, problem(403, 'forbidden', "A partner key may only read its own centre's sessions."));
      return reply.header('etag', etagOf(session)).header('cache-control', 'no-store').send(session);
    },
  );

  app.put(
    '/api/admin/sessions/:id',
    {
      schema: {
        operationId: 'adminPutSession',
        summary: 'Create or replace a session',
        description:
          'day2 is the day after day1 (it may be omitted); neither day is a Sunday or a public holiday; endTime after startTime; spotsAvailable at most capacity (6 to 20). A partner key writes its own centre only. If-Match makes the write conditional.',
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
          ...auth,
        },
      },
    },
    async (request, reply) => {
      try {
        const { created, session } = await putSession(
          db,
          request.params.id,
          request.body,
          scopeOf(request),
          ifMatch(request),
        );
        await served();
        return reply
          .code(created ? 201 : 200)
          .header('etag', etagOf(session))
          .send(session);
      } catch (err) {
        return refuse(reply, err);
      }
    },
  );

  app.patch(
    '/api/admin/sessions/:id',
    {
      schema: {
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
          ...auth,
        },
      },
    },
    async (request, reply) => {
      try {
        const session = await patchSession(
          db,
          request.params.id,
          request.body,
          scopeOf(request),
          ifMatch(request),
          (merged) => {
            const parsed = SessionInputSchema.safeParse(merged);
            return parsed.success
              ? []
              : parsed.error.issues.map((i) => ({ name: String(i.path[0] ?? 'body'), reason: i.message }));
          },
        );
        await served();
        return reply.header('etag', etagOf(session)).send(session);
      } catch (err) {
        return refuse(reply, err);
      }
    },
  );

  app.post(
    '/api/admin/sessions/:id/places',
    {
      schema: {
        operationId: 'adminChangePlaces',
        summary: 'Add or take places, atomically',
        description:
          'For a booking system that sells or frees seats elsewhere: `{"change": -1}` takes one place. Never goes below 0 or above capacity (409), however many calls run at once on however many instances. Send an `Idempotency-Key` header (any text up to 255 characters, unique per change) so that a retried call is applied once; the replayed answer carries `Idempotent-Replayed: true`.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        headers: z.object({ 'idempotency-key': z.string().optional() }),
        body: PlacesChangeSchema,
        response: {
          200: AdminSessionSchema,
          400: problemResponse('Invalid body or Idempotency-Key.'),
          404: problemResponse('No session has this id.'),
          409: problemResponse(
            'The change would leave fewer than 0 or more than capacity places, or the session is cancelled.',
          ),
          422: problemResponse('This Idempotency-Key was used for a different request.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const identity = request.identity;
      const key = request.headers['idempotency-key'];
      if (key !== undefined && !IDEMPOTENCY_KEY.test(key))
        return sendProblem(
          reply,
          problem(400, 'invalid_parameters', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
            errors: [{ name: 'Idempotency-Key', reason: 'must be 1 to 255 visible ASCII characters' }],
          }),
        );
      try {
        const { session, replayed } = await changePlaces(
          db,
          request.params.id,
          request.body.change,
          scopeOf(request),
          key !== undefined && identity.kind === 'apiKey'
            ? {
                apiKeyId: identity.keyId,
                key,
                requestHash: createHash('sha256')
                  .update(`${request.params.id}\u0000${request.body.change}`)
                  .digest('base64url'),
              }
            : undefined,
        );
        if (!replayed) await served();
        if (replayed) reply.header('idempotent-replayed', 'true');
        return reply.header('etag', etagOf(session)).send(session);
      } catch (err) {
        return refuse(reply, err);
      }
    },
  );

  app.post(
    '/api/admin/import',
    {
      bodyLimit: app.config.importMaxBytes,
      schema: {
        operationId: 'adminImport',
        summary: 'Import a batch of centres and sessions, all or nothing',
        description:
          'JSON (`{"centres": [...], "sessions": [...]}`, or an array of records each with `"type": "centre"|"session"`), NDJSON (`application/x-ndjson`, one record with a `type` per line) or CSV (`text/csv`, a header row with a `type` column). Records are upserted by `id` (UUIDs: derive them from your own references with UUID v5 to keep them stable). One bad record refuses the whole batch with 422 listing every bad record (index, line, id, field, reason); nothing is written. `?dryRun=true` only validates and counts. A partner key imports its own sessions only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: ImportQuery,
        response: {
          200: ImportResultSchema,
          400: problemResponse('The body cannot be read as the format its Content-Type names.'),
          413: problemResponse('The body is over IMPORT_MAX_MB.'),
          415: problemResponse('Content-Type is not application/json, application/x-ndjson or text/csv.'),
          422: problemResponse(
            'Invalid records; `errors` lists each (name = field, with index, line and id); nothing was written.',
          ),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      const format: ImportFormat = type === 'text/csv' ? 'csv' : type?.endsWith('ndjson') ? 'ndjson' : 'json';
      try {
        const records = parseImport(request.body, format);
        const result = await importBatch(db, records, scopeOf(request), { dryRun: request.query.dryRun });
        if (!result.dryRun) await served();
        return reply.send(result);
      } catch (err) {
        if (err instanceof ImportRefused)
          return sendProblem(
            reply,
            problem(err.status, err.code, err.message, {
              errors: err.issues.map(({ field, reason, ...where }) => ({ name: field, reason, ...where })),
            }),
          );
        return refuse(reply, err);
      }
    },
  );
};

function ifMatch(request: FastifyRequest): string | undefined {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
}
