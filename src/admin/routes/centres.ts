import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { actorOf } from '../../history/actor.js';
import { problemResponse } from '../../http/problem.js';
import { getCentre, putCentre, setCentreSuspension } from '../repository/centres.js';
import { etagOf } from '../repository/etag.js';
import { AdminCentreSchema } from '../response-schemas.js';
import { CentreInputSchema, CentrePatchSchema } from '../schemas.js';
import { ADMIN_SECURITY, auth, IdParams, ifMatch, requireOperator, scopeOf, TAGS, unreachable } from './shared.js';

/** /api/admin/centres/{id}: a partner reads its own centre; only the operator writes centres. */
export const centreRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

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
      const centre =
        scope.centreId === null || scope.centreId === request.params.id
          ? await getCentre(db, request.params.id)
          : undefined;
      if (!centre) throw unreachable(request, 'centre', request.params.id);
      return reply.header('etag', etagOf(centre)).header('cache-control', 'no-store').send(centre);
    },
  );

  app.put(
    '/api/admin/centres/:id',
    {
      // Refused before its id and body are read or validated: a partner learns nothing here.
      onRequest: requireOperator,
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
      const { created, centre } = await putCentre(
        db,
        request.params.id,
        request.body,
        ifMatch(request),
        actorOf(request.identity),
      );
      // The answer waits until this instance serves the change, so that the writer reads its own write.
      await app.catalogue.refresh();
      return reply
        .code(created ? 201 : 200)
        .header('etag', etagOf(centre))
        .send(centre);
    },
  );

  app.patch(
    '/api/admin/centres/:id',
    {
      onRequest: requireOperator,
      schema: {
        operationId: 'adminPatchCentre',
        summary: 'Suspend or restore a centre (operator key)',
        description:
          'suspended: true (with suspensionReason) takes the centre and its sessions off every public answer within a second: lists, lookups by id (404), the centre, MCP tools, the site and its sitemap; the change stream says its sessions were removed. Its bookings are kept. suspended: false brings everything back. Recorded in the history. If-Match makes the write conditional on the ETag you read.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        params: IdParams,
        body: CentrePatchSchema,
        response: {
          200: AdminCentreSchema,
          400: problemResponse('Invalid fields; `errors` names each one.'),
          404: problemResponse('No centre has this id.'),
          412: problemResponse('If-Match does not match the current ETag.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const centre = await setCentreSuspension(
        db,
        request.params.id,
        { suspended: request.body.suspended, reason: request.body.suspensionReason },
        ifMatch(request),
        actorOf(request.identity),
      );
      if (!centre) throw unreachable(request, 'centre', request.params.id);
      await app.catalogue.refresh();
      return reply.header('etag', etagOf(centre)).send(centre);
    },
  );
};
