import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponse } from '../../http/problem.js';
import { parseImport } from '../import/parse.js';
import type { ImportFormat } from '../import/records.js';
import { importBatch } from '../import/write.js';
import { ImportResultSchema } from '../response-schemas.js';
import { ADMIN_SECURITY, auth, scopeOf, TAGS } from './shared.js';

const ImportQuery = z.object({
  dryRun: z
    .enum(['true', 'false', '1', '0', ''], { error: 'dryRun must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

/** POST /api/admin/import: a batch of centres and sessions, all or nothing (import/). */
export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;

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
      const records = parseImport(request.body, format);
      const result = await importBatch(db, records, scopeOf(request), { dryRun: request.query.dryRun });
      // The answer waits until this instance serves the change, so that the writer reads its own write.
      if (!result.dryRun) await app.catalogue.refresh();
      return reply.send(result);
    },
  );
};
