import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../core/errors.js';
import { actorOf } from '../../history/actor.js';
import { problemResponse } from '../../http/problem.js';
import { etagOf } from '../repository/etag.js';
import { changePlaces } from '../repository/places.js';
import { AdminSessionSchema } from '../response-schemas.js';
import { PlacesChangeSchema } from '../schemas.js';
import { ADMIN_SECURITY, auth, IdParams, scopeOf, TAGS, withinReach } from './shared.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** POST /api/admin/sessions/{id}/places: a relative, atomic change of the places left. */
export const placesRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

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
        throw new DomainError(400, 'invalid_parameters', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', [
          { name: 'Idempotency-Key', reason: 'must be 1 to 255 visible ASCII characters' },
        ]);
      const { id } = request.params;
      const idempotency =
        key !== undefined && identity.kind === 'apiKey'
          ? {
              apiKeyId: identity.keyId,
              key,
              requestHash: createHash('sha256').update(`${id}\u0000${request.body.change}`).digest('base64url'),
            }
          : undefined;
      const { session, replayed } = await withinReach(
        request,
        'session',
        id,
        // The answer waits until this instance serves the change, so that the writer reads its own write.
        app.catalogue.served((told) =>
          changePlaces(db, id, request.body.change, scopeOf(request), idempotency, actorOf(request.identity), told),
        ),
      );
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.header('etag', etagOf(session)).send(session);
    },
  );
};
