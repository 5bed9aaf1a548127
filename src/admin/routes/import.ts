import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemResponse } from '../../http/problem.js';
import { MAX_LISTED_ISSUES } from '../import/issues.js';
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
  const limits = { maxRecords: app.config.importMaxRecords };

  // JSON too arrives as text: the import reads it a record at a time (import/parse-json.ts) instead
  // of Fastify building the whole document, which for 16 million tiny records took gigabytes.
  // Registered here, the parser serves this route only.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: app.config.importMaxBytes },
    (_req, body, done) => done(null, body),
  );

  app.post(
    '/api/admin/import',
    {
      bodyLimit: app.config.importMaxBytes,
      schema: {
        operationId: 'adminImport',
        summary: 'Import a batch of centres and sessions, all or nothing',
        description: `JSON (\`{"centres": [...], "sessions": [...]}\`, or an array of records each with \`"type": "centre"|"session"\`), NDJSON (\`application/x-ndjson\`, one record with a \`type\` per line) or CSV (\`text/csv\`, a header row with a \`type\` column). Records are upserted by \`id\` (UUIDs: derive them from your own references with UUID v5 to keep them stable). One bad record refuses the whole batch with 422 listing the first ${MAX_LISTED_ISSUES} issues in record order (index, line, id, field, reason), with \`errorCount\` counting them all; nothing is written. At most IMPORT_MAX_RECORDS records (${limits.maxRecords} here): a larger batch is refused with 413 as soon as the record past the limit is read. CSV cells that start with \`'\` followed by \`=\`, \`+\`, \`-\`, \`@\`, a tab or a carriage return lose that quote (the export adds it against formula injection). \`?dryRun=true\` only validates and counts. A partner key imports its own sessions only.`,
        tags: TAGS,
        security: ADMIN_SECURITY,
        querystring: ImportQuery,
        response: {
          200: ImportResultSchema,
          400: problemResponse(
            `The body cannot be read as the format its Content-Type names; for NDJSON, \`errors\` lists the first ${MAX_LISTED_ISSUES} bad lines and \`errorCount\` counts them all.`,
          ),
          413: problemResponse(
            'The body is over IMPORT_MAX_MB (`body_too_large`), or holds more than IMPORT_MAX_RECORDS records (`too_many_records`).',
          ),
          415: problemResponse('Content-Type is not application/json, application/x-ndjson or text/csv.'),
          422: problemResponse(
            `Invalid records; \`errors\` lists the first ${MAX_LISTED_ISSUES} issues in record order (name = field, with index, line and id), \`errorCount\` counts them all and \`truncated\` says whether some are not listed; nothing was written.`,
          ),
          ...auth,
        },
      },
    },
    async (request, reply) => {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      const format: ImportFormat = type === 'text/csv' ? 'csv' : type?.endsWith('ndjson') ? 'ndjson' : 'json';
      const text = typeof request.body === 'string' ? request.body : '';
      const records = await parseImport(text, format, limits);
      const result = await importBatch(db, records, scopeOf(request), { dryRun: request.query.dryRun });
      // The answer waits until this instance serves the change, so that the writer reads its own write.
      if (!result.dryRun) await app.catalogue.refresh();
      return reply.send(result);
    },
  );
};
