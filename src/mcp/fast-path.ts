import type { FastifyInstance } from 'fastify';
import type { Catalogue } from '../catalogue/catalogue.js';
import { METROPOLITAN_TIME_ZONE } from '../catalogue/geography.js';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { type SearchScope, stillValid } from '../catalogue/search.js';
import { startTurns } from '../catalogue/start-turns.js';
import { type Clock, dateIn } from '../core/clock.js';
import { ByteSlab } from '../http/byte-slab.js';
import type { AnswerNote } from './answer-scope.js';
import { offsetsOf, splitAtId, type Template, withUpdatedAt } from './answer-template.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's MCP answer cache (see McpAnswerCache), or undefined when MCP_ANSWER_CACHE is off. */
    mcpAnswerCache: McpAnswerCache | undefined;
  }
}

/**
 * The MCP fast path: answers of the hot read methods (`tools/list`, `tools/call` of the read-only
 * tools), kept by content and replayed with the caller's id.
 *
 * The SDK answers the first request of each content (the request minus its id, with the headers the
 * SDK reads): that answer's bytes are stored as a template around the id. A later request with the
 * same content gets those bytes with its own id spliced in, and the same status and headers, without
 * the SDK: no per-request server, no Request/Response objects, no zod on the way in or out. Nothing
 * here knows a tool: whatever the SDK answers (arguments, validation, formatting) is what is replayed,
 * so tools and arguments added to the SDK server flow through unchanged.
 *
 * Only successful results are kept (HTTP 200, a `result` that is not `isError`): errors, unknown
 * methods and tools, invalid arguments, notifications, batches, `initialize` always reach the SDK.
 * Every answer depends only on its content, the catalogue snapshot, the calendar date and which
 * sessions have begun: the cache is emptied when the date changes in Paris or in the time zone of
 * any centre (the tools compute "today" in the centre's zone), checked once a second, and when a
 * session starts (it leaves the lists). A catalogue change drops the answers it can alter: those
 * whose tool told what they drew on (answer-scope.ts) while their departments (and, for a search by
 * name or position, the centres) are unchanged are kept, as REST's are, and given the catalogue's
 * new `updatedAt` where they carry it; any other answer is dropped on any change.
 */

/** Request headers the SDK reads to classify, validate or answer a POST: part of an answer's content. */
const CONTENT_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-session-id'] as const;

export interface AnswerCacheLimits {
  /** Most answers kept. */
  maxEntries: number;
  /** Most bytes kept, bodies and keys counted (UTF-16 keys at 2 bytes a character). */
  maxBytes: number;
}

export const DEFAULT_ANSWER_CACHE_LIMITS: AnswerCacheLimits = { maxEntries: 4000, maxBytes: 32 * 1024 * 1024 };

const WHOLE: SearchScope = { depts: 'all', centres: true };
const NOTHING: SearchScope = { depts: [], centres: false };

/** A request the fast path may answer: its content key and its id. */
export interface FastPathCandidate {
  key: string;
  id: string | number;
  /** tools/list: an answer that no catalogue change alters. */
  listsTools?: boolean;
}

export interface FastAnswer {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

type Headers = Record<string, string | string[] | undefined>;

export class McpAnswerCache {
  readonly #entries = new Map<string, Template>();
  // Each answer is its kept bytes with the caller's id: cut from a slab rather than allocated apart.
  readonly #slab = new ByteSlab();
  readonly #limits: AnswerCacheLimits;
  readonly #tools: ReadonlySet<string>;
  readonly #catalogue: Catalogue;
  readonly #clock: Clock;
  #bytes = 0;
  #snapshot: CatalogueSnapshot | undefined;
  #centres: CatalogueSnapshot['centresById'] | undefined;
  #zones: string[] = [];
  #second = Number.NaN;
  #dates = '';
  /** The first session start (ms) in any snapshot seen since the cache was last emptied. */
  #until = Number.NEGATIVE_INFINITY;
  /** How many times the cache was emptied: an answer is kept only if none happened while it was computed. */
  #generation = 0;
  hits = 0;
  misses = 0;

  /**
   * @param tools the tools whose calls may be kept: read-only ones, whose answer depends only on
   *   their arguments, the catalogue snapshot and the date.
   */
  constructor(
    deps: { catalogue: Catalogue; clock: Clock },
    tools: ReadonlySet<string>,
    limits: AnswerCacheLimits = DEFAULT_ANSWER_CACHE_LIMITS,
  ) {
    this.#catalogue = deps.catalogue;
    this.#clock = deps.clock;
    this.#tools = tools;
    this.#limits = limits;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The content key of a request the fast path may serve, or undefined for anything else: a
   * single JSON-RPC 2.0 request (an id the SDK accepts: a string or a safe integer) of `tools/list`, or
   * of `tools/call` naming a cacheable tool.
   */
  candidate(message: unknown, headers: Headers): FastPathCandidate | undefined {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
    const { id, ...rest } = message as { id?: unknown; method?: unknown; params?: unknown; jsonrpc?: unknown };
    if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
    if (rest.jsonrpc !== '2.0') return undefined;
    if (rest.method === 'tools/call') {
      const name = (rest.params as { name?: unknown } | null | undefined)?.name;
      if (typeof name !== 'string' || !this.#tools.has(name)) return undefined;
    } else if (rest.method !== 'tools/list') return undefined;
    let key = '';
    for (const name of CONTENT_HEADERS) {
      const value = headers[name];
      key += `${value === undefined ? '' : Array.isArray(value) ? value.join(', ') : value}\n`;
    }
    return { key: key + JSON.stringify(rest), id, listsTools: rest.method === 'tools/list' };
  }

  /** The kept answer to this content, with the caller's id; undefined when the SDK must answer. */
  lookup(candidate: FastPathCandidate): FastAnswer | undefined {
    this.#expire();
    let entry = this.#entries.get(candidate.key);
    const snapshot = this.#catalogue.snapshot;
    if (entry && entry.isoAt.length > 0 && entry.iso !== snapshot.updatedAtIso) {
      // A new template in the old one's place: a kept answer, once made, is never altered.
      const stamped = withUpdatedAt(entry, snapshot.updatedAtIso);
      if (!stamped) this.#drop(candidate.key, entry);
      entry = stamped;
    }
    if (entry && !stillValid(snapshot, entry.version, entry.scope)) {
      this.#drop(candidate.key, entry);
      entry = undefined;
    }
    if (!entry) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Most recently used last: the first entry of the map is the one to evict.
    this.#entries.delete(candidate.key);
    this.#entries.set(candidate.key, entry);
    const id = JSON.stringify(candidate.id);
    const idLength = Buffer.byteLength(id);
    const body = this.#slab.take(entry.prefix.length + idLength + entry.suffix.length);
    body.set(entry.prefix, 0);
    body.write(id, entry.prefix.length);
    body.set(entry.suffix, entry.prefix.length + idLength);
    return { status: entry.status, headers: entry.headers, body };
  }

  /**
   * The `store` of this candidate, for the code that sends the SDK's answer; `note` collects what
   * its tool tells it drew on while the SDK answers (see answer-scope.ts).
   */
  keeper(candidate: FastPathCandidate, note?: AnswerNote) {
    const generation = this.#generation;
    // Without a scope told, the answer holds for this version only (it may read a later one: then
    // it is dropped at once, never served stale).
    const version = this.#catalogue.snapshot.version;
    return (status: number, headers: [string, string][], body: string): void => {
      this.#expire();
      // Computed before a date or a session's start turned: it may already be stale.
      if (this.#generation !== generation) return;
      const told = candidate.listsTools
        ? { version, scope: NOTHING, updatedAtIso: '' }
        : note?.scopes.length === 1
          ? note.scopes[0]
          : undefined;
      this.store(candidate, status, headers, body, told ?? { version, scope: WHOLE, updatedAtIso: '' });
    };
  }

  /**
   * Keeps the SDK's answer to a candidate when it is a successful result whose id can be spliced:
   * `headers` as the SDK set them (content-length aside), `body` its exact text.
   */
  store(
    candidate: FastPathCandidate,
    status: number,
    headers: [string, string][],
    body: string,
    drew: { version: number; scope: SearchScope; updatedAtIso: string } = {
      version: this.#catalogue.snapshot.version,
      scope: WHOLE,
      updatedAtIso: '',
    },
  ): boolean {
    if (status !== 200) return false;
    const template = splitAtId(body, candidate.id);
    if (!template) return false;
    const bytes = template.prefix.length + template.suffix.length + candidate.key.length * 2;
    if (bytes > this.#limits.maxBytes / 16) return false;
    this.#expire();
    const previous = this.#entries.get(candidate.key);
    if (previous) this.#drop(candidate.key, previous);
    const isoAt = drew.updatedAtIso === '' ? [] : offsetsOf(template.prefix, drew.updatedAtIso);
    this.#entries.set(candidate.key, {
      status,
      headers: Object.fromEntries(headers),
      ...template,
      bytes,
      version: drew.version,
      scope: drew.scope,
      iso: drew.updatedAtIso,
      isoAt,
    });
    this.#bytes += bytes;
    while (this.#entries.size > this.#limits.maxEntries || this.#bytes > this.#limits.maxBytes) {
      const oldest = this.#entries.keys().next().value as string;
      this.#drop(oldest, this.#entries.get(oldest) as Template);
    }
    return true;
  }

  #drop(key: string, entry: Template): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }

  /**
   * Empties the cache when the date in any of the catalogue's time zones has changed, or a session
   * has started since (in any snapshot seen: a session added by a change may start first).
   */
  #expire(): void {
    const snapshot = this.#catalogue.snapshot;
    const now = this.#clock.now();
    const second = Math.floor(now.getTime() / 1000);
    if (snapshot === this.#snapshot && second === this.#second) return;
    if (snapshot !== this.#snapshot) {
      // Centres are shared by the snapshots of changes to sessions: their zones are read again
      // only when they changed (14,000 centres at ten times the demo).
      if (snapshot.centresById !== this.#centres) {
        const zones = new Set([METROPOLITAN_TIME_ZONE]);
        for (const centre of snapshot.centresById.values()) zones.add(centre.timeZone);
        this.#zones = [...zones];
        this.#centres = snapshot.centresById;
      }
      this.#until = Math.min(this.#until, startTurns(snapshot, now.getTime()).next);
    }
    const dates = this.#zones.map((zone) => dateIn(now, zone)).join(' ');
    const changed = dates !== this.#dates || now.getTime() >= this.#until;
    this.#snapshot = snapshot;
    this.#second = second;
    this.#dates = dates;
    if (!changed) return;
    this.#until = startTurns(snapshot, now.getTime()).next;
    this.#generation++;
    this.#entries.clear();
    this.#bytes = 0;
  }
}

/**
 * Makes the app's answer cache, when MCP_ANSWER_CACHE is on (the default), and decorates the app
 * with it (`app.mcpAnswerCache`, which tests read the counters of).
 */
export function answerCacheFor(
  app: FastifyInstance,
  deps: { catalogue: Catalogue; clock: Clock },
  tools: ReadonlySet<string>,
): McpAnswerCache | undefined {
  const cache = app.config.mcpAnswerCache ? new McpAnswerCache(deps, tools) : undefined;
  app.decorate('mcpAnswerCache', cache);
  return cache;
}
