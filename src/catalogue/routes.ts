import { createHash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { dateIn } from './clock.js';
import type { CatalogueSnapshot } from './read-model.js';
import { SearchQueryStringSchema, type StageList, StageListSchema } from './schemas.js';
import { SearchArgumentError, type SearchResult, searchStages, stillValid } from './search.js';

const COMMA = Buffer.from(',');

/** The 429 response's description: the tiers as configured. */
function rateLimitNote(config: Config): string {
  const r = config.rateLimit;
  return `Rate limit reached; retry after the number of seconds in Retry-After. Anonymous callers may make ${r.anonymous} requests per ${r.windowMs / 1000} s per IP address; callers of POST /api/mcp with a valid access token ${r.authenticated} per ${r.windowMs / 1000} s per client. Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.`;
}

/** A list answer in two parts around its `updatedAt`, so that a cached answer outlives changes elsewhere. */
interface ListParts {
  head: Buffer;
  tail: Buffer;
}

function listParts(result: SearchResult, platform: string): ListParts {
  const head = Buffer.from(
    `{"object":"list","count":${result.entries.length},"total":${result.total},"description":${JSON.stringify(result.description)},` +
      `"platform":${JSON.stringify(platform)},"updatedAt":"`,
  );
  const parts: Buffer[] = [Buffer.from('","data":[')];
  result.entries.forEach((e, i) => {
    if (i > 0) parts.push(COMMA);
    const km = result.distances?.[i];
    // distanceKm goes last, inside the session's prebuilt object.
    parts.push(
      km === undefined ? e.bytes : Buffer.concat([e.bytes.subarray(0, -1), Buffer.from(`,"distanceKm":${km}}`)]),
    );
  });
  parts.push(Buffer.from(result.nextCursor ? `],"nextCursor":"${result.nextCursor}"}` : ']}'));
  return { head, tail: Buffer.concat(parts) };
}

/** Serialises a search result by concatenating the sessions' prebuilt JSON bytes. */
export function listBody(result: SearchResult, platform: string, updatedAtIso: string): Buffer {
  const { head, tail } = listParts(result, platform);
  return Buffer.concat([head, Buffer.from(updatedAtIso), tail]);
}

interface CachedAnswer extends ListParts {
  /** The catalogue version it was computed at, and what it drew on. */
  version: number;
  scope: SearchResult['scope'];
  today: string;
  /** Weak: the same sessions and description; updatedAt may differ (RFC 9110 §8.8.1). */
  etag: string;
  /** The whole body for `bodyIso`, assembled on first use. */
  body?: Buffer;
  bodyIso?: string;
}

/**
 * Answers of recent queries, keyed by the query string. An answer stays valid while the
 * departments it drew on do not change (and, for a town search, no centre changes), so a steady
 * stream of changes elsewhere does not empty the cache; a new day does.
 */
class ResponseCache {
  #entries = new Map<string, CachedAnswer>();
  constructor(private readonly maxEntries: number) {}

  get(snapshot: CatalogueSnapshot, today: string, key: string): CachedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.today === today && stillValid(snapshot, entry.version, entry.scope)) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    // Oldest first out: a Map iterates in insertion order.
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, answer);
  }
}

/** RFC 9110 §13.1.2: If-None-Match matches by weak comparison, or `*`. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
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
    async (request, reply) => {
      const snapshot = app.catalogue.snapshot;
      const today = dateIn(app.clock.now());
      // The query has been validated; its raw text identifies the answer.
      const queryString = request.url.slice(request.url.indexOf('?') + 1 || request.url.length);
      let answer = cache.get(snapshot, today, queryString);
      if (!answer) {
        let result: SearchResult;
        try {
          result = searchStages(snapshot, request.query, today);
        } catch (err) {
          if (!(err instanceof SearchArgumentError)) throw err;
          return sendProblem(
            reply,
            problem(400, 'invalid_parameters', err.message, {
              errors: [{ name: err.field, reason: err.reason }],
              instance: '/api/stages',
            }),
          );
        }
        const parts = listParts(result, platform);
        const hash = createHash('sha1').update(parts.head).update(parts.tail).digest('base64url').slice(0, 22);
        answer = { ...parts, version: snapshot.version, scope: result.scope, today, etag: `W/"${hash}"` };
        cache.set(queryString, answer);
      }
      reply.header('cache-control', 'no-cache').header('etag', answer.etag);
      if (noneMatch(request.headers['if-none-match'], answer.etag)) return reply.code(304).send(null);
      if (answer.bodyIso !== snapshot.updatedAtIso || !answer.body) {
        answer.body = Buffer.concat([answer.head, Buffer.from(snapshot.updatedAtIso), answer.tail]);
        answer.bodyIso = snapshot.updatedAtIso;
      }
      // The body is already JSON (checked against StageListSchema in the tests): Fastify sends
      // bytes as they are, skipping the per-request serialiser.
      return reply.type('application/json; charset=utf-8').send(answer.body as unknown as StageList);
    },
  );
};
