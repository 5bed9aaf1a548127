import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { startTurns } from '../catalogue/start-turns.js';
import { LruCache, stringBytes } from '../core/lru-cache.js';
import { discoveryLinks } from '../discovery/links.js';
import { siteErrorPage } from '../web/error-page.js';
import type { SiteInfo } from '../web/layout.js';
import { HTML_CONTENT_TYPE } from '../web/render.js';
import { MARKDOWN_CONTENT_TYPE, pageMarkdown, prefersMarkdown } from './markdown.js';

/**
 * Rendered pages, kept until the catalogue changes, the hour turns or a session starts. Every page
 * depends only on the snapshot, on "today" in some French zone — all of them (Paris and overseas)
 * have whole-hour offsets, so a date anywhere changes only when the UTC hour does — and on which
 * sessions have begun (they leave the lists, their page no longer takes bookings).
 */
export interface CachedPage {
  status: number;
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

/** Rendered pages within `maxBytes` (their bodies and keys), first in, first out. */
export class PageCache {
  #epoch = '';
  readonly #entries: LruCache<string, CachedPage>;
  constructor(maxBytes: number) {
    this.#entries = new LruCache(maxBytes, (key, page) => stringBytes(key) + page.body.length + 128, {
      order: 'insertion',
    });
  }

  /** The bytes the pages hold, as counted. */
  get bytes(): number {
    return this.#entries.bytes;
  }

  /**
   * The catalogue version and the UTC hour ("26-2030-03-04T09"), and, once a session has started
   * within that hour, the minute of the latest start ("26-2030-03-04T0930").
   */
  static epoch(snapshot: CatalogueSnapshot, now: Date): string {
    const nowMs = now.getTime();
    const hour = now.toISOString().slice(0, 13);
    const last = startTurns(snapshot, nowMs).last;
    const minute = last >= nowMs - (nowMs % HOUR_MS) ? new Date(last).toISOString().slice(14, 16) : '';
    // A snapshot that dropped centres whose approval ended keeps its version: its turn tells it apart.
    const version = snapshot.turn > 0 ? `${snapshot.version}.${snapshot.turn}` : `${snapshot.version}`;
    return `${version}-${hour}${minute}`;
  }

  get(epoch: string, key: string): CachedPage | undefined {
    if (epoch !== this.#epoch) {
      this.#epoch = epoch;
      this.#entries.clear();
      return undefined;
    }
    return this.#entries.get(key);
  }

  set(epoch: string, key: string, page: CachedPage): void {
    if (epoch !== this.#epoch) return; // rendered from a snapshot that is no longer current
    this.#entries.set(key, page);
  }
}

/** A rendered page, or `undefined` for the site's 404. */
export type Rendered = { status: number; html: string } | undefined;
export type PageRenderer = (request: FastifyRequest) => Rendered;
export type PageHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

function toCached(out: NonNullable<Rendered>): CachedPage {
  return { status: out.status, body: Buffer.from(out.html) };
}

/**
 * Makes page handlers: each serves its page from the cache, or renders it (undefined → the 404
 * page) and keeps it. The same bytes for every visitor, so browsers and shared caches may keep them.
 */
export function cachedPages(app: FastifyInstance, site: SiteInfo): (render: PageRenderer) => PageHandler {
  const cache = new PageCache(PAGE_CACHE_BYTES);
  const links = discoveryLinks(site.baseUrl);
  return (render) => async (request, reply) => {
    // Every page has a Markdown twin for agents (Accept: text/markdown), named in its Link header.
    const alternate = `<${site.baseUrl}${request.url.replace(/[<>]/g, encodeURIComponent)}>; rel="alternate"; type="text/markdown"`;
    reply.header('link', `${links}, ${alternate}`).header('vary', 'Accept');
    const epoch = PageCache.epoch(app.catalogue.snapshot, app.clock.now());
    let cached = cache.get(epoch, request.url);
    if (!cached) {
      cached = toCached(render(request) ?? { status: 404, html: siteErrorPage(site, 404) });
      cache.set(epoch, request.url, cached);
    }
    if (prefersMarkdown(request.headers.accept)) {
      const key = `markdown ${request.url}`;
      let markdown = cache.get(epoch, key);
      if (!markdown) {
        const text = await pageMarkdown(cached.body.toString(), site.baseUrl, request.url);
        markdown = { status: cached.status, body: Buffer.from(text) };
        cache.set(epoch, key, markdown);
      }
      if (markdown.status !== 200)
        return reply
          .code(markdown.status)
          .header('cache-control', 'no-cache')
          .type(MARKDOWN_CONTENT_TYPE)
          .send(markdown.body);
      reply.header('cache-control', PUBLIC_PAGE);
      const etag = `"${epoch}-md"`;
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.code(200).type(MARKDOWN_CONTENT_TYPE).send(markdown.body);
    }
    // Form posts from these pages then carry a real Origin (see FormGuard).
    reply.header('referrer-policy', 'same-origin');
    if (cached.status !== 200)
      return reply.code(cached.status).header('cache-control', 'no-cache').type(HTML_CONTENT_TYPE).send(cached.body);
    // Spots left change at any moment: a page unchanged since (same catalogue version, same hour, no
    // session started) costs a browser or a CDN asking again an empty 304.
    const etag = `"${epoch}"`;
    reply.header('cache-control', PUBLIC_PAGE).header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.code(200).type(HTML_CONTENT_TYPE).send(cached.body);
  };
}
