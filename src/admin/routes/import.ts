import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../history/actor.js';
import { problemResponse } from '../../http/problem.js';
import { MAX_LISTED_ISSUES } from '../import/issues.js';
import { parseImport } from '../import/parse.js';
import { type ImportFormat, type ImportLimits, type ImportRecord, ImportRefused } from '../import/records.js';
import { bodyTooLarge } from '../import/source.js';
import { importBatch } from '../import/write.js';
import { ImportResultSchema } from '../response-schemas.js';
import { ADMIN_SECURITY, auth, scopeOf, TAGS } from './shared.js';

const ImportQuery = z.object({
  dryRun: z
    .enum(['true', 'false', '1', '0', ''], { error: 'dryRun must be true or false' })
    .optional()
    .transform((v) => v === 'true' || v === '1'),
});

const BODY_FORMATS: [string, ImportFormat][] = [
  ['application/json', 'json'],
  ['application/x-ndjson', 'ndjson'],
  ['application/ndjson', 'ndjson'],
  ['text/csv', 'csv'],
];

/**
 * The records of an import body. A body whose Content-Length is over the limit is refused unread.
 * One refused while it arrives is read to its end (and dropped, at most another IMPORT_MAX_MB)
 * before the answer, so that the client, still sending, reads the refusal instead of a reset.
 */
async function readBody(
  payload: Readable,
  format: ImportFormat,
  limits: ImportLimits & { maxBytes: number },
  contentLength: string | undefined,
): Promise<ImportRecord[]> {
  if (Number(contentLength) > limits.maxBytes) throw bodyTooLarge(limits.maxBytes);
  const chunks = payload.iterator({ destroyOnReturn: false });
  try {
    return await parseImport(chunks, format, limits);
  } catch (err) {
    if (err instanceof ImportRefused && err.code !== 'body_too_large') await drain(payload, chunks, limits.maxBytes);
    throw err;
  }
}

/** Reads what is left of a body and drops it, up to `maxBytes`. */
async function drain(payload: Readable, chunks: AsyncIterator<Buffer>, maxBytes: number): Promise<void> {
  let bytes = 0;
  // Through the parser's own iterator while it is open (a stream with a reader pulling is not
  // resumed by resume()), then in flowing mode if the parser closed it first.
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    bytes += next.value.length;
    if (bytes > maxBytes) return;
  }
  if (payload.readableEnded || payload.destroyed) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      payload.off('data', count).off('end', done).off('error', done).off('close', done).pause();
      resolve();
    };
    const count = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) done();
    };
    payload.on('data', count).on('end', done).on('error', done).on('close', done);
    payload.resume();
  });
}

/** POST /api/admin/import: a batch of centres and sessions, all or nothing (import/). */
export const importRoutes: FastifyPluginAsyncZod = async (app) => {
  const db = app.database.db;
  const limits = { maxRecords: app.config.importMaxRecords };

  // The body is read as it arrives, a record at a time (import/parse.ts), instead of Fastify
  // buffering it and building the whole document: 16 million tiny records once took gigabytes, and
  // a 32 MB body held the event loop while it was decoded. Registered here, the parsers serve this
  // route only; a refusal while reading is answered by the error handler (413, 400).
  for (const [type, format] of BODY_FORMATS) {
    app.addContentTypeParser(type, (request: FastifyRequest, payload: Readable) =>
      readBody(payload, format, { ...limits, maxBytes: app.config.importMaxBytes }, request.headers['content-length']),
    );
  }

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
      const records = request.body as ImportRecord[];
      const result = await importBatch(db, records, scopeOf(request), {
        dryRun: request.query.dryRun,
        clock: app.clock,
        actor: actorOf(request.identity),
      });
      // The answer waits until this instance serves the change, so that the writer reads its own write.
      if (!result.dryRun) await app.catalogue.refresh();
      return reply.send(result);
    },
  );
};
