import { randomBytes } from 'node:crypto';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { ByteSlab } from '../http/byte-slab.js';

/*
 * A page as bytes, assembled from pieces: the markup preact renders for this page, and the markup
 * kept from earlier renderings (a session's card, its facts, the booking form, the header, the list
 * of departments...), held in UTF-8 from the first page that used it. Turning a whole 20 KB page
 * string into bytes on every request cost as much as rendering it; the kept pieces are now copied
 * as they are, and only the markup rendered for this page is encoded.
 *
 * While a page renders, each inserted markup is written as a placeholder, an HTML comment carrying
 * a nonce drawn at start and the markup's number, then replaced by the markup's bytes. No text of
 * the page can pose as one: preact escapes `<` in text and attribute values, and the only other
 * raw insertions (JSON-LD, Markdown rendered with HTML disabled) hold no `<` either, nor the nonce.
 */

/** Markup rendered by preact (or JSON-LD made by jsonLdText), inserted as it is; its bytes made once. */
export class Markup {
  #bytes: Buffer | undefined;
  constructor(readonly html: string) {}

  /** Its UTF-8 bytes, encoded the first time a page assembled from bytes inserts it. */
  get bytes(): Buffer {
    this.#bytes ??= Buffer.from(this.html);
    return this.#bytes;
  }

  /** The bytes it holds, its text and (once made) its UTF-8, for a cache's budget. */
  get size(): number {
    return 2 * this.html.length + (this.#bytes?.length ?? 0) + 128;
  }
}

let keeping = true;

/**
 * Turns kept markups off (every one is then rendered afresh, inline, as if none were kept, and
 * pages are rendered as one string, then encoded: the reference rendering the tests compare pages
 * with) or back on, the default.
 */
export function keepMarkup(on: boolean): void {
  keeping = on;
}

/** Whether kept markups are used; other kept renderings (JSON-LD, say) follow the same switch. */
export function keepsMarkup(): boolean {
  return keeping;
}

const NONCE = randomBytes(9).toString('base64url');
const OPEN = `<!--${NONCE}:`;
const OPEN_BYTES = Buffer.from(OPEN);
const DASH = 0x2d;
const CLOSE_LENGTH = '-->'.length;

/** The markups inserted so far in the page being rendered as bytes; undefined outside one. */
let inserted: Markup[] | undefined;

/**
 * What to insert (as `dangerouslySetInnerHTML`) for `markup`: its text, or, in a page rendered as
 * bytes, its placeholder.
 */
export function insertMarkup(markup: Markup): string {
  if (inserted === undefined) return markup.html;
  return `${OPEN}${inserted.push(markup) - 1}-->`;
}

/** Markup rendered now, within a page or not: a string of its own, every insertion in it as text. */
export function renderMarkup(node: VNode): string {
  const outer = inserted;
  inserted = undefined;
  try {
    return renderToString(node);
  } finally {
    inserted = outer;
  }
}

// Page bodies are cut from slabs this large (they are short-lived, or kept first in, first out).
const slab = new ByteSlab(1024 * 1024);
// The page's own markup, encoded here first (at most 3 bytes a UTF-16 unit), grown when too small.
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * `<!doctype html>` and the page, in UTF-8: the same bytes as `Buffer.from(renderPage(page))`,
 * each inserted markup copied from its bytes.
 */
export function renderPageBytes(page: VNode): Buffer {
  if (!keeping) return Buffer.from(`<!doctype html>${renderMarkup(page)}`);
  const outer = inserted;
  const markups: Markup[] = [];
  inserted = markups;
  let html: string;
  try {
    html = `<!doctype html>${renderToString(page)}`;
  } finally {
    inserted = outer;
  }
  if (markups.length === 0) return slab.utf8(html);
  if (scratch.length < 3 * html.length) scratch = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(3 * html.length)));
  const own = scratch.subarray(0, scratch.write(html, 0, 'utf8'));
  // Where each placeholder begins and ends, and the bytes the page will take.
  const starts: number[] = [];
  const ends: number[] = [];
  const pieces: Buffer[] = [];
  let length = own.length;
  for (let at = own.indexOf(OPEN_BYTES); at >= 0; at = own.indexOf(OPEN_BYTES, at)) {
    let i = at + OPEN_BYTES.length;
    let index = 0;
    while (own[i] !== DASH) index = index * 10 + (own[i++] as number) - 0x30;
    const piece = (markups[index] as Markup).bytes;
    const end = i + CLOSE_LENGTH;
    starts.push(at);
    ends.push(end);
    pieces.push(piece);
    length += piece.length - (end - at);
    at = end;
  }
  if (pieces.length !== markups.length) throw new Error('a markup was inserted outside dangerouslySetInnerHTML');
  const body = slab.take(length);
  let from = 0;
  let to = 0;
  for (let p = 0; p < pieces.length; p++) {
    to += own.copy(body, to, from, starts[p]);
    to += (pieces[p] as Buffer).copy(body, to);
    from = ends[p] as number;
  }
  own.copy(body, to, from);
  return body;
}
