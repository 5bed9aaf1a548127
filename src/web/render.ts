import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { Markup } from './page-bytes.js';

/*
 * Pages are preact components rendered to a string: text and attribute values are escaped by
 * the renderer, so catalogue content can never become markup. The only raw insertions are
 * JSON-LD (see jsonLdText) and Markdown already rendered with HTML disabled (see articles).
 */

export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}

/**
 * JSON for a <script type="application/ld+json"> block. Escaping `<`, `>` and `&` as \u
 * sequences keeps the JSON identical to a parser while no catalogue text (say a centre named
 * "</script><script>…") can close the block.
 */
export function jsonLdText(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** JSON-LD already made by jsonLdText (kept from an earlier page, say), for a layout to insert as it is. */
export class JsonLdText extends Markup {
  get text(): string {
    return this.html;
  }
}
