import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { type SearchScope, stillValid } from '../catalogue/search.js';
import { startTurns } from '../catalogue/start-turns.js';
import { LruCache, stringBytes } from '../core/lru-cache.js';
import { discoveryLinks } from '../discovery/links.js';
import { ByteSlab } from '../http/byte-slab.js';
import { siteErrorPage } from '../web/error-page.js';
import type { SiteInfo } from '../web/layout.js';
import { HTML_CONTENT_TYPE } from '../web/render.js';
import { MARKDOWN_CONTENT_TYPE, pageMarkdown, prefersMarkdown } from './markdown.js';

/**
 * Rendered pages, kept until what they show may have changed: a page that says which departments
 * it drew on (`scope`) outlives changes elsewhere in France; any other page lasts as long as the
 * catalogue version. Every page also depends on "today" in some French zone — all of them (Paris
 * and overseas) have whole-hour offsets, so a date anywhere changes only when the UTC hour does —
 * and on which sessions have begun (they leave the lists, their page no longer takes bookings).
 */
export interface PageStamp {
  status: number;
  /** The catalogue version (and turn) it was rendered at, and the departments it drew on, if it said. */
  version: number;
  turn: number;
  scope: SearchScope | undefined;
  /** Its entity tag: the version it was rendered at and the time key. */
  tag: string;
}
/** A page as rendered: what it was rendered from, and its bytes. */
export interface CachedPage extends PageStamp {
  body: Buffer;
}
/**
 * What a shared cache (a CDN) may do with a page: keep it SHARED_FRESH_SECONDS, then serve it
 * STALE_SECONDS more while it asks again (a 304 when nothing changed). Places shown are then at
 * most a few seconds old; browsers always ask (max-age=0) and get a 304 when the page is unchanged.
 * Pages are the same for every visitor (no cookie, no token: see web/form-guard.ts).
 */
export const SHARED_FRESH_SECONDS = 2;
export const STALE_SECONDS = 3;
const PUBLIC_PAGE = `public, max-age=0, s-maxage=${SHARED_FRESH_SECONDS}, stale-while-revalidate=${STALE_SECONDS}`;

const HOUR_MS = 3_600_000;

/** What the rendered pages kept for reuse may hold (docs/operations.md, memory). */
export const PAGE_CACHE_BYTES = 16 * 1024 * 1024;
/**
 * What the stamps of pages asked once may hold: about 2,500 of them (a key and ~160 bytes each), as
 * many pages as the page cache holds at 6 KB each, more than it holds of session (8 KB) or search
 * (20 KB) pages.
 */
export const PAGE_STAMP_BYTES = 512 * 1024;
/** Page bodies are cut from slabs this large; pages that may take over an eighth of one get their own buffer. */
const PAGE_SLAB_BYTES = 1024 * 1024;

/** Whether what `page` shows cannot have changed in `snapshot` since it was rendered. */
function stillShown(page: PageStamp, snapshot: CatalogueSnapshot): boolean {
  if (page.turn !== snapshot.turn) return false;
  return (
    page.version === snapshot.version || (page.scope !== undefined && stillValid(snapshot, page.version, page.scope))
  );
}

/**
 * Rendered pages within `maxBytes` (their bodies and keys), first in, first out; a page is kept from
 * its second request on. Of a page asked once only its stamp is kept (what it was rendered from, and
 * its tag: no body), within PAGE_STAMP_BYTES: a page asked once — a crawler walking every session, a
 * search with a cache-busting parameter — would only push out pages that are asked again, and keep
 * the collector busy with bodies that live just long enough to be promoted. Its second request
 * renders it again, as it was (nothing it shows has changed, or the stamp is gone) and under the same
 * tag, so a browser asking again with that tag still gets its 304.
 */
export class PageCache {
  #time = '';
  readonly #entries: LruCache<string, CachedPage>;
  readonly #stamps: LruCache<string, PageStamp>;
  constructor(maxBytes: number, stampBytes = PAGE_STAMP_BYTES) {
    this.#entries = new LruCache(maxBytes, (key, page) => stringBytes(key) + page.body.length + 192, {
      order: 'insertion',
    });
    this.#stamps = new LruCache(stampBytes, (key) => stringBytes(key) + 160, { order: 'insertion' });
  }

  /** The bytes the pages hold, as counted. */
  get bytes(): number {
    return this.#entries.bytes;
  }

  /**
   * The UTC hour ("2030-03-04T09"), and, once a session has started within that hour, the minute of
   * the latest start ("2030-03-04T0930"): every page kept is rendered again when it turns.
   */
  static timeKey(snapshot: CatalogueSnapshot, now: Date): string {
    const nowMs = now.getTime();
    const hourStart = nowMs - (nowMs % HOUR_MS);
    const last = startTurns(snapshot, nowMs).last;
    // Every page request asks: the same hour and latest start make the same key as last time.
    const memo = PageCache.#timeMemo;
    if (memo.hourStart === hourStart && memo.last === last) return memo.key;
    const hour = now.toISOString().slice(0, 13);
    const minute = last >= hourStart ? new Date(last).toISOString().slice(14, 16) : '';
    const key = `${hour}${minute}`;
    PageCache.#timeMemo = { hourStart, last, key };
    return key;
  }

  static #timeMemo = { hourStart: Number.NaN, last: Number.NaN, key: '' };

  /** A page's entity tag: the version it was rendered at ("26", or "26.1" one turn on) and the time key. */
  static tag(snapshot: CatalogueSnapshot, time: string): string {
    // A snapshot that dropped centres whose approval ended keeps its version: its turn tells it apart.
    const version = snapshot.turn > 0 ? `${snapshot.version}.${snapshot.turn}` : `${snapshot.version}`;
    return `${version}-${time}`;
  }

  /** The page kept for `key`, if what it shows cannot have changed in `snapshot` since it was rendered. */
  get(snapshot: CatalogueSnapshot, time: string, key: string): CachedPage | undefined {
    if (time !== this.#time) {
      this.#time = time;
      this.#entries.clear();
      this.#stamps.clear();
      return undefined;
    }
    const page = this.#entries.get(key);
    if (!page) return undefined;
    if (stillShown(page, snapshot)) return page;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * The stamp of the page `key` asked once, if what it shows cannot have changed in `snapshot`
   * since (the page itself is not kept: see `get`).
   */
  stamp(snapshot: CatalogueSnapshot, time: string, key: string): PageStamp | undefined {
    if (time !== this.#time) return undefined;
    const stamp = this.#stamps.get(key);
    if (!stamp) return undefined;
    if (stillShown(stamp, snapshot)) return stamp;
    this.#stamps.delete(key);
    return undefined;
  }

  /** Keeps the page. */
  set(time: string, key: string, page: CachedPage): void {
    if (time !== this.#time) return; // rendered in another hour (or minute) than the one kept
    this.#stamps.delete(key);
    this.#entries.set(key, page);
  }

  /** Keeps the page's stamp only (a page asked once). */
  remember(time: string, key: string, page: PageStamp): void {
    if (time !== this.#time) return;
    const { status, version, turn, scope, tag } = page;
    this.#stamps.set(key, { status, version, turn, scope, tag });
  }
}

/**
 * A rendered page, or `undefined` for the site's 404. `scope`: the departments (and whether any
 * centre) its content drew on, when the renderer knows them; without it, a page is rendered again
 * after any change.
 */
export type Rendered = { status: number; body: Buffer; scope?: SearchScope } | undefined;
export type PageRenderer = (request: FastifyRequest) => Rendered;
export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/**
 * The page rendered now, under its stamp if it has one (rendered at an earlier version, nothing it
 * shows changed since: the same page), or the snapshot's.
 */
function toCached(
  out: NonNullable<Rendered>,
  stamp: PageStamp | undefined,
  snapshot: CatalogueSnapshot,
  time: string,
): CachedPage {
  const { body } = out;
  if (stamp) return { ...stamp, body };
  const { version, turn } = snapshot;
  return { status: out.status, body, version, turn, scope: out.scope, tag: PageCache.tag(snapshot, time) };
}

/**
 * Makes page handlers: each serves its page from the cache, or renders it (undefined → the 404
 * page) and keeps it. The same bytes for every visitor, so browsers and shared caches may keep them.
 */
export function cachedPages(app: FastifyInstance, site: SiteInfo): (render: PageRenderer) => PageHandler {
  const cache = new PageCache(PAGE_CACHE_BYTES);
  // Pages are kept first in, first out: the slabs their bodies are cut from are freed in that order.
  const slab = new ByteSlab(PAGE_SLAB_BYTES);
  const links = discoveryLinks(site.baseUrl);
  return (render) => async (request, reply) => {
    // Every page has a Markdown twin for agents (Accept: text/markdown), named in its Link header.
    const alternate = `<${site.baseUrl}${request.url.replace(/[<>]/g, encodeURIComponent)}>; rel="alternate"; type="text/markdown"`;
    reply.header('link', `${links}, ${alternate}`).header('vary', 'Accept');
    const snapshot = app.catalogue.snapshot;
    const time = PageCache.timeKey(snapshot, app.clock.now());
    let cached = cache.get(snapshot, time, request.url);
    const markdownAsked = prefersMarkdown(request.headers.accept);
    if (!cached) {
      const stamp = cache.stamp(snapshot, time, request.url);
      // A browser or CDN asking again about a page unchanged since: its 304 needs no rendering.
      if (stamp?.status === 200 && !markdownAsked && request.headers['if-none-match'] === `"${stamp.tag}"`) {
        reply.header('referrer-policy', 'same-origin');
        return reply.header('cache-control', PUBLIC_PAGE).header('etag', `"${stamp.tag}"`).code(304).send();
      }
      const out = render(request) ?? { status: 404, body: slab.utf8(siteErrorPage(site, 404)) };
      cached = toCached(out, stamp, snapshot, time);
      if (stamp) cache.set(time, request.url, cached);
      else cache.remember(time, request.url, cached);
    }
    if (markdownAsked) {
      const key = `markdown ${request.url}`;
      let markdown = cache.get(snapshot, time, key);
      if (!markdown || markdown.tag !== cached.tag) {
        const text = await pageMarkdown(cached.body.toString(), site.baseUrl, request.url);
        // The page's twin: valid as long as the page it was made from.
        markdown = { ...cached, body: Buffer.from(text) };
        cache.set(time, key, markdown);
      }
      if (markdown.status !== 200)
        return reply
          .code(markdown.status)
          .header('cache-control', 'no-cache')
          .type(MARKDOWN_CONTENT_TYPE)
          .send(markdown.body);
      reply.header('cache-control', PUBLIC_PAGE);
      const etag = `"${markdown.tag}-md"`;
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.code(200).type(MARKDOWN_CONTENT_TYPE).send(markdown.body);
    }
    // Form posts from these pages then carry a real Origin (see FormGuard).
    reply.header('referrer-policy', 'same-origin');
    if (cached.status !== 200)
      return reply.code(cached.status).header('cache-control', 'no-cache').type(HTML_CONTENT_TYPE).send(cached.body);
    // Spots left change at any moment: a page unchanged since (nothing it shows changed, same hour,
    // no session started) costs a browser or a CDN asking again an empty 304.
    const etag = `"${cached.tag}"`;
    reply.header('cache-control', PUBLIC_PAGE).header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.code(200).type(HTML_CONTENT_TYPE).send(cached.body);
  };
}
