import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CatalogueSnapshot } from '../catalogue/read-model.js';
import { startTurns } from '../catalogue/start-turns.js';
import { LruCache, stringBytes } from '../core/lru-cache.js';
import { discoveryLinks } from '../discovery/links.js';
import { siteErrorPage } from '../web/error-page.js';
import type { FormGuard } from '../web/form-guard.js';
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
  /** Where the visitor's form token goes (the byte offset of FORM_TOKEN_SLOT), when the page has a form. */
  slot?: number | undefined;
}

/**
 * Rendered in place of the visitor's form token in cached pages, and replaced per answer. Not a
 * possible token (those are 22 characters), and plain ASCII that escaping leaves as it is.
 */
export const FORM_TOKEN_SLOT = 'form-token-slot-000000000';

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

// Searched as the hidden input's whole attribute: catalogue text cannot contain it (its quotes are escaped).
const SLOT_ATTRIBUTE = Buffer.from(`name="formToken" value="${FORM_TOKEN_SLOT}"`);
const SLOT_OFFSET = SLOT_ATTRIBUTE.length - FORM_TOKEN_SLOT.length - 1;
const SLOT = Buffer.from(FORM_TOKEN_SLOT);

function toCached(out: NonNullable<Rendered>): CachedPage {
  const body = Buffer.from(out.html);
  const at = body.indexOf(SLOT_ATTRIBUTE);
  return { status: out.status, body, slot: at >= 0 ? at + SLOT_OFFSET : undefined };
}

function withToken(body: Buffer, slot: number, token: string): Buffer {
  return Buffer.concat([body.subarray(0, slot), Buffer.from(token), body.subarray(slot + SLOT.length)]);
}

/**
 * Makes page handlers: each serves its page from the cache, or renders it (undefined → the 404
 * page) and keeps it. A page with the reservation form gets this visitor's token spliced in.
 */
export function cachedPages(
  app: FastifyInstance,
  site: SiteInfo,
  guard: FormGuard,
): (render: PageRenderer) => PageHandler {
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
      // No form, so no visitor's token: the same bytes for everyone.
      reply.header('cache-control', 'no-cache');
      if (markdown.status !== 200) return reply.code(markdown.status).type(MARKDOWN_CONTENT_TYPE).send(markdown.body);
      const etag = `"${epoch}-md"`;
      reply.header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.code(200).type(MARKDOWN_CONTENT_TYPE).send(markdown.body);
    }
    // Spots left change at any moment: browsers revalidate rather than show a stale count, and a page
    // unchanged since (same catalogue version, same hour, no session started) costs them an empty 304.
    let etag = `"${epoch}"`;
    let body = cached.body;
    if (cached.slot === undefined) reply.header('cache-control', 'no-cache');
    else {
      // A page with the reservation form carries this visitor's token: theirs alone to keep.
      const token = guard.tokenFor(request, reply);
      body = withToken(cached.body, cached.slot, token);
      etag = `"${epoch}-${createHash('sha256').update(token).digest('base64url').slice(0, 10)}"`;
      // Same-origin navigations and form posts then carry a real Origin (see FormGuard).
      reply.header('cache-control', 'private, no-cache').header('referrer-policy', 'same-origin');
    }
    if (cached.status !== 200) return reply.code(cached.status).type(HTML_CONTENT_TYPE).send(body);
    reply.header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.code(200).type(HTML_CONTENT_TYPE).send(body);
  };
}
