import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { problemResponse } from '../http/problem.js';
import { dateIn } from './clock.js';
import { SearchQueryStringSchema, type StageList, StageListSchema } from './schemas.js';
import { type SearchResult, searchStages } from './search.js';

const COMMA = Buffer.from(',');

/** The 429 response's description: the tiers as configured. */
function rateLimitNote(config: Config): string {
  const r = config.rateLimit;
  return `Rate limit reached; retry after the number of seconds in Retry-After. Anonymous callers may make ${r.anonymous} requests per ${r.windowMs / 1000} s per IP address; callers of POST /api/mcp with a valid access token ${r.authenticated} per ${r.windowMs / 1000} s per client. Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.`;
}

/** Serialises a search result by concatenating the sessions' prebuilt JSON bytes. */
export function listBody(result: SearchResult, platform: string, updatedAtIso: string): Buffer {
  const head = Buffer.from(
    `{"object":"list","count":${result.entries.length},"description":${JSON.stringify(result.description)},` +
      `"platform":${JSON.stringify(platform)},"updatedAt":"${updatedAtIso}","data":[`,
  );
  const parts: Buffer[] = [head];
  result.entries.forEach((e, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(e.bytes);
  });
  parts.push(Buffer.from(']}'));
  return Buffer.concat(parts);
}

/**
 * Answers for identical queries are identical until the catalogue or the day changes, so the
 * bytes of recent answers are kept, keyed by the query string, and dropped at either change.
 */
class ResponseCache {
  #epoch = '';
  #entries = new Map<string, Buffer>();
  constructor(private readonly maxEntries: number) {}

  get(epoch: string, key: string): Buffer | undefined {
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#entries.clear();
      return undefined;
    }
    return this.#entries.get(key);
  }

  set(key: string, body: Buffer): void {
    // Oldest first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, body);
  }
}

export const stagesRoutes: FastifyPluginAsyncZod = async (app) => {
  const platform = app.config.platformName;
  const cache = new ResponseCache(512);
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
          429: problemResponse(rateLimitNote(app.config)),
        },
      },
    },
    async (request, reply) => {
      const snapshot = app.catalogue.snapshot;
      const today = dateIn(app.clock.now());
      // The query has been validated; its raw text identifies the answer.
      const queryString = request.url.slice(request.url.indexOf('?') + 1 || request.url.length);
      const epoch = `${snapshot.version}|${today}`;
      let body = cache.get(epoch, queryString);
      if (!body) {
        body = listBody(searchStages(snapshot, request.query, today), platform, snapshot.updatedAtIso);
        cache.set(queryString, body);
      }
      // The body is already JSON (checked against StageListSchema in the tests): Fastify sends
      // bytes as they are, skipping the per-request serialiser.
      return reply
        .type('application/json; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(body as unknown as StageList);
    },
  );
};
