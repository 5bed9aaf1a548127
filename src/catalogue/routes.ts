import { hash } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.js';
import { dateIn } from '../core/clock.js';
import { ByteSlab } from '../http/byte-slab.js';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { memoizedQueryValidator } from '../http/query-validator.js';
import { RecentKeys } from '../http/recent-keys.js';
import type { CatalogueSnapshot, SessionEntry } from './read-model.js';
import { SearchQueryStringSchema, type StageList, StageListSchema, searchFields, toNotBeforeFrom } from './schemas.js';
import { SearchArgumentError, type SearchResult, searchStages, stillValid } from './search.js';

const COMMA = 0x2c;

/** The 429 response's description: the tiers as configured. */
function rateLimitNote(config: Config): string {
  const r = config.rateLimit;
  return `Rate limit reached; retry after the number of seconds in Retry-After. Anonymous callers may make ${r.anonymous} requests per ${r.windowMs / 1000} s per IP address; callers of POST /api/mcp with a valid access token ${r.authenticated} per ${r.windowMs / 1000} s per client. Every limited response carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset.`;
}

const DATA_OPEN = '","data":[';

/** A list answer's bytes, its `updatedAt` (an ISO instant) and where it sits in them, and its weak ETag. */
interface ListBody {
  bytes: Buffer;
  iso: string;
  isoAt: number;
  /** Of the answer but its `updatedAt`: the same sessions and description (RFC 9110 §8.8.1). */
  etag: string;
}

const slab = new ByteSlab();

/** A session's digest, for ETags: its JSON never changes once built, so it is made once. */
function digestOf(e: SessionEntry): string {
  e.digest ??= hash('sha1', e.bytes, 'base64url').slice(0, 16);
  return e.digest;
}

/**
 * Serialises a search result into one buffer, copying each session's prebuilt JSON bytes once
 * (with `near`, its distanceKm goes last, inside the session's object). The ETag hashes what the
 * answer says but its `updatedAt`: the head, each session's digest (computed once per session's
 * JSON), each distance and the tail — about 600 characters rather than the 6 KB of a typical answer.
 */
export function listBody(result: SearchResult, platform: string, updatedAtIso: string): ListBody {
  const head = `{"object":"list","count":${result.entries.length},"total":${result.total},"description":${JSON.stringify(result.description)},"platform":${JSON.stringify(platform)},"updatedAt":"`;
  const tail = result.nextCursor ? `],"nextCursor":"${result.nextCursor}"}` : ']}';
  const { entries, distances } = result;
  // ,"distanceKm":12.3} in place of each session's closing brace
  const extras = distances?.map((km) => `,"distanceKm":${km}}`);
  let said = head + tail;
  const headLength = Buffer.byteLength(head);
  let size = headLength + updatedAtIso.length + DATA_OPEN.length + tail.length + Math.max(0, entries.length - 1);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as SessionEntry;
    said += digestOf(e);
    size += e.bytes.length;
    const extra = extras?.[i];
    if (extra !== undefined) {
      said += extra;
      size += extra.length - 1;
    }
  }
  const bytes = slab.take(size);
  let at = headLength === head.length ? bytes.write(head, 0, 'latin1') : bytes.write(head, 0);
  const isoAt = at;
  at += bytes.write(updatedAtIso, at, 'latin1');
  at += bytes.write(DATA_OPEN, at, 'latin1');
  for (let i = 0; i < entries.length; i++) {
    if (i > 0) bytes[at++] = COMMA;
    const e = (entries[i] as SessionEntry).bytes;
    bytes.set(e, at);
    at += e.length;
    const extra = extras?.[i];
    // Over the session's closing brace.
    if (extra !== undefined) at += bytes.write(extra, at - 1, 'latin1') - 1;
  }
  at += bytes.write(tail, at, 'latin1');
  // Every byte of a slab's slice must be written: it may hold an earlier answer.
  if (at !== size) throw new Error(`list answer of ${at} bytes where ${size} were counted`);
  return { bytes, iso: updatedAtIso, isoAt, etag: `W/"${hash('sha1', said, 'base64url').slice(0, 22)}"` };
}

/** The same answer with another `updatedAt`, in a new buffer (the old one may still be on its way out). */
function withUpdatedAt(body: ListBody, updatedAtIso: string): ListBody {
  const { bytes, iso, isoAt } = body;
  const before = bytes.subarray(0, isoAt);
  const after = bytes.subarray(isoAt + iso.length);
  return {
    bytes: Buffer.concat([before, Buffer.from(updatedAtIso, 'latin1'), after]),
    iso: updatedAtIso,
    isoAt,
    etag: body.etag,
  };
}

interface CachedAnswer {
  /** The catalogue version it was computed at, and what it drew on. */
  version: number;
  scope: SearchResult['scope'];
  today: string;
  body: ListBody;
}

/**
 * Answers of recent queries, keyed by the query string. An answer stays valid while the
 * departments it drew on do not change (and, for a town search, no centre changes), so a steady
 * stream of changes elsewhere does not empty the cache; a new day does. An answer is kept from its
 * query's second request on (see RecentKeys).
 */
class ResponseCache {
  #entries = new Map<string, CachedAnswer>();
  // Four times as many keys as answers: a query asked again within that many is worth keeping.
  #asked: RecentKeys;
  constructor(private readonly maxEntries: number) {
    this.#asked = new RecentKeys(4 * maxEntries);
  }

  get(snapshot: CatalogueSnapshot, today: string, key: string): CachedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.today === today && stillValid(snapshot, entry.version, entry.scope)) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, answer: CachedAnswer): void {
    if (!this.#asked.seenBefore(key)) return;
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
          sendProblem(
            reply,
            problem(400, 'invalid_parameters', err.message, {
              errors: [{ name: err.field, reason: err.reason }],
              instance: '/api/stages',
            }),
          );
          return;
        }
        answer = {
          version: snapshot.version,
          scope: result.scope,
          today,
          body: listBody(result, platform, snapshot.updatedAtIso),
        };
        cache.set(queryString, answer);
      }
      reply.header('cache-control', 'no-cache').header('etag', answer.body.etag);
      if (noneMatch(request.headers['if-none-match'], answer.body.etag)) {
        reply.code(304).send(null);
        return;
      }
      if (answer.body.iso !== snapshot.updatedAtIso) answer.body = withUpdatedAt(answer.body, snapshot.updatedAtIso);
      // The body is already JSON (checked against StageListSchema in the tests): Fastify sends
      // bytes as they are, skipping the per-request serialiser.
      reply.type('application/json; charset=utf-8').send(answer.body.bytes as unknown as StageList);
    },
  );
};
