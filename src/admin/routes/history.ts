import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { instantOf } from '../../core/clock.js';
import { DomainError } from '../../core/errors.js';
import { HISTORY_ENTITIES, type HistoryEntity } from '../../history/changes.js';
import { listHistory } from '../../history/list.js';
import { problemResponse } from '../../http/problem.js';
import { uuidField } from '../schemas.js';
import { blank, cursorQuery, limitQuery } from './query.js';
import { ADMIN_SECURITY, auth, scopeOf, TAGS } from './shared.js';

const ListQuery = z.object({
  centreId: z.preprocess(blank, uuidField('centreId').optional()),
  entity: z.preprocess(
    blank,
    z.enum(HISTORY_ENTITIES, { error: 'entity must be centre, session, reservation, member or api_key' }).optional(),
  ),
  entityId: z.preprocess(blank, uuidField('entityId').optional()),
  limit: limitQuery(500, 100),
  cursor: cursorQuery(instantOf),
});

const HistoryEntrySchema = z
  .object({
    id: z.uuid(),
    at: z.iso.datetime().describe('When the change was committed (its transaction’s time).'),
    centreId: z.uuid(),
    entity: z.enum(HISTORY_ENTITIES),
    entityId: z
      .string()
      .describe('The record’s id: a UUID (a member’s is their user id), or an API key’s 16 hexadecimal digits.'),
    field: z
      .string()
      .describe(
        'The field as the admin API names it (priceEuros, spotsAvailable, status…); a member’s `role`, an API key’s `created` and `revoked`.',
      ),
    oldValue: z.string().nullable().describe('Before, as text; null when the record was created or the field empty.'),
    newValue: z.string().nullable(),
    actor: z.object({
      kind: z.enum(['api_key', 'user', 'cli', 'site', 'system']),
      id: z.string().nullable().describe('The API key’s (or user’s) id.'),
      label: z.string().nullable().describe('The API key’s name, or “command line”.'),
    }),
  })
  .meta({
    id: 'HistoryEntry',
    description: 'One changed field of a centre, session or reservation, or of a team member or API key of the centre.',
  });

/** GET /api/admin/history: who changed what and when, newest first; a partner key sees its own centre. */
export const historyRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;
  app.get(
    '/api/admin/history',
    {
      schema: {
        operationId: 'adminListHistory',
        summary: 'The history of changes: who changed what and when, newest first',
        description:
          'One entry per changed field of a centre, session or reservation written through the admin API, the command line or the centres’ area, and each team member given or losing a role and partner API key created or revoked there, with the old and new values and who wrote it (an API key, the command line). A reservation’s entries are its status only. Kept a year. Filter by `centreId`, `entity`, `entityId`; `limit` per page and `nextCursor` as `cursor` for the next one. A partner key sees its own centre only.',
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: ListQuery,
        response: {
          200: z.object({ data: z.array(HistoryEntrySchema), nextCursor: z.string().nullable() }),
          400: problemResponse('Invalid parameters; `errors` names each one.'),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const scope = scopeOf(request);
      const q = request.query;
      if (scope.centreId !== null && q.centreId !== undefined && q.centreId !== scope.centreId)
        throw new DomainError(403, 'forbidden', "A partner key may only read its own centre's history.");
      const rows = await listHistory(db, {
        centreId: scope.centreId ?? q.centreId,
        entity: q.entity,
        entityId: q.entityId,
        before: q.cursor ? { at: q.cursor.key, id: q.cursor.id } : undefined,
        limit: q.limit,
      });
      const last = rows.at(-1);
      const nextCursor = rows.length === q.limit && last ? `${last.cursorAt}.${last.id}` : null;
      const data = rows.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        centreId: r.centreId,
        entity: r.entity as HistoryEntity,
        entityId: r.entityId,
        field: r.field,
        oldValue: r.oldValue,
        newValue: r.newValue,
        actor: {
          kind: r.actorKind as 'api_key' | 'user' | 'cli' | 'site' | 'system',
          id: r.actorId,
          label: r.actorLabel,
        },
      }));
      return reply.header('cache-control', 'no-store').send({ data, nextCursor });
    },
  );
};
