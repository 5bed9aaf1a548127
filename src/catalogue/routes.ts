import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { problemResponse } from '../http/problem.js';
import { dateIn } from './clock.js';
import type { SessionEntry } from './read-model.js';
import { SearchQueryStringSchema, type StageList, StageListSchema } from './schemas.js';
import { type SearchResult, searchStages } from './search.js';

/** Serialises a search result by concatenating the sessions' prebuilt JSON. */
export function listBody(result: SearchResult, platform: string, updatedAtIso: string): string {
  return (
    `{"object":"list","count":${result.entries.length},"description":${JSON.stringify(result.description)},` +
    `"platform":${JSON.stringify(platform)},"updatedAt":"${updatedAtIso}","data":[${result.entries.map((e: SessionEntry) => e.json).join(',')}]}`
  );
}

export const stagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const platform = app.config.platformName;
  app.get(
    '/api/stages',
    {
      schema: {
        operationId: 'searchStages',
        summary: 'Search upcoming course sessions',
        description:
          "Returns upcoming two-day points-recovery course sessions of prefecture-approved centres, with effective price and remaining places. By default only bookable sessions (places left) are returned. Booking is done by the human user on each session's bookingUrl.",
        tags: ['stages'],
        querystring: SearchQueryStringSchema,
        response: {
          200: StageListSchema,
          400: problemResponse('An invalid parameter value; `errors` names each one.'),
          429: problemResponse('Rate limit reached; retry after the number of seconds in Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const snapshot = app.catalogue.snapshot;
      const result = searchStages(snapshot, request.query, dateIn(app.clock.now()));
      // The body is already JSON (checked against StageListSchema in the tests): Fastify sends
      // a string with a JSON content type as it is, skipping the per-request serialiser.
      const body = listBody(result, platform, snapshot.updatedAtIso) as unknown as StageList;
      return reply.type('application/json; charset=utf-8').header('cache-control', 'no-cache').send(body);
    },
  );
};
