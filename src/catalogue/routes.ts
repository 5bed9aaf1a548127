import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { dateIn } from '../core/clock.js';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { memoizedQueryValidator } from '../http/query-validator.js';
import { ListBodies, withUpdatedAt } from './list-body.js';
import { type CachedAnswer, ResponseCache } from './response-cache.js';
import { SearchQueryStringSchema, type StageList, StageListSchema, searchFields, toNotBeforeFrom } from './schemas.js';
import { SearchArgumentError, type SearchResult, searchStages } from './search.js';
import { startTurns } from './start-turns.js';

/** The 429 response's description: the tiers as configured. */
function rateLimitNote(config: Config): string {
  const r = config.rateLimit;
  return `Rate limit reached; retry after the number of seconds in Retry-After. Anonymous callers may make ${r.anonymous} requests per ${r.windowMs / 1000} s per IP address; callers of POST /api/mcp with a valid access token ${r.authenticated} per ${r.windowMs / 1000} s per client. Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.`;
}

/** RFC 9110 §13.1.2: If-None-Match matches by weak comparison, or `*`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

/** What the answers of GET /api/stages kept for reuse may hold (docs/operations.md, memory). */
export const ANSWER_CACHE_BYTES = 16 * 1024 * 1024;

export const stagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const platform = app.config.platformName;
  const cache = new ResponseCache(ANSWER_CACHE_BYTES);
  const bodies = new ListBodies();
  app.get(
    '/api/stages',
    {
      // The same output and errors as SearchQueryStringSchema, each parameter's value parsed once.
      validatorCompiler: memoizedQueryValidator(searchFields, SearchQueryStringSchema, toNotBeforeFrom),
      schema: {
        operationId: 'searchStages',
        summary: 'Search upcoming course sessions',
        description:
          "Returns upcoming two-day points-recovery course sessions of prefecture-approved centres, with effective price and remaining places. By default only bookable sessions (places left) are returned. Booking is done by the human user on each session's bookingUrl.",
        tags: ['stages'],
        querystring: SearchQueryStringSchema,
        response: {
          200: StageListSchema,
          304: z
            .null()
            .describe(
              "Not modified: If-None-Match names this answer's ETag (its sessions and description are unchanged; only updatedAt may differ). No body.",
            ),
          400: problemResponse('An invalid parameter value; `errors` names each one.'),
          429: problemResponse(rateLimitNote(app.config)),
        },
      },
    },
    // Synchronous, as all its work is: no promise to settle per request.
    (request, reply) => {
      const snapshot = app.catalogue.snapshot;
      const now = app.clock.now();
      const today = dateIn(now);
      // The query has been validated; its raw text identifies the answer.
      const queryString = request.url.slice(request.url.indexOf('?') + 1 || request.url.length);
      let answer: CachedAnswer | undefined = cache.get(snapshot, today, now.getTime(), queryString);
      if (!answer) {
        let result: SearchResult;
        try {
          result = searchStages(snapshot, request.query, now);
        } catch (err) {
          if (!(err instanceof SearchArgumentError)) throw err;
          sendProblem(
            reply,
            problem(400, 'invalid_parameters', err.message, {
              errors: [
                { name: err.field, reason: err.reason, ...(err.candidates ? { candidates: [...err.candidates] } : {}) },
              ],
              instance: '/api/stages',
            }),
          );
          return;
        }
        answer = {
          version: snapshot.version,
          scope: result.scope,
          today,
          until: startTurns(snapshot, now.getTime()).next,
          body: bodies.write(result, platform, snapshot.updatedAtIso),
        };
        cache.set(queryString, answer);
      }
      reply.header('cache-control', 'no-cache').header('etag', answer.body.etag);
      if (noneMatch(request.headers['if-none-match'], answer.body.etag)) {
        reply.code(304).send(null);
        return;
      }
      if (answer.body.iso !== snapshot.updatedAtIso) {
        // A new answer in the old one's place: a cached answer, once made, is never altered.
        answer = { ...answer, body: withUpdatedAt(answer.body, snapshot.updatedAtIso) };
        cache.replace(queryString, answer);
      }
      // The body is already JSON (checked against StageListSchema in the tests): Fastify sends
      // bytes as they are, skipping the per-request serialiser.
      reply.type('application/json; charset=utf-8').send(answer.body.bytes as unknown as StageList);
    },
  );
};
