import { type ComponentChildren, Fragment, h, type VNode } from 'preact';
import { LruCache } from '../core/lru-cache.js';
import { insertMarkup, keepsMarkup, Markup, renderMarkup } from './page-bytes.js';

/*
 * Markup that many pages repeat — a session's card and facts, a centre's section, the header and
 * footer — rendered once by preact (so escaped like the rest of the page) and kept, then inserted
 * whole as the content of the element that holds it: the renderer's own output, never text built
 * from data. Rendering it afresh on every page cost most of an uncached page's time.
 *
 * A kept markup is valid for its key and its variant only. Keys are the read model's entries,
 * which are immutable (a changed session or centre is a new entry, so its markup is rendered
 * again the first time a page shows it), or the plain values the markup is made from. A page
 * rendered as bytes copies the markup's UTF-8 bytes, kept too (web/page-bytes.ts).
 */

/** Markups kept by key, least recently used first out, within a byte budget. */
export class KeptMarkup<K> {
  readonly #kept: LruCache<K, { variant: string; markup: Markup }>;

  constructor(maxBytes: number) {
    // Its text (two bytes a character at most), its UTF-8 bytes, and the entry's own overhead.
    this.#kept = new LruCache(maxBytes, (_key, kept) => kept.markup.size + 64);
  }

  /** The markup of `render()` for `key` in this `variant`, rendered now unless kept. */
  markup(key: K, variant: string, render: () => ComponentChildren): Markup {
    const kept = this.#kept.get(key);
    if (kept !== undefined && kept.variant === variant) return kept.markup;
    const markup = new Markup(renderMarkup(h(Fragment, null, render())));
    // Its bytes now, while it is new: counted in the budget, and made before the page copies them.
    void markup.bytes;
    this.#kept.set(key, { variant, markup });
    return markup;
  }
}

export { keepMarkup, keepsMarkup } from './page-bytes.js';

export interface KeptProps<K> {
  /** The element that holds the markup, and its attributes (written in this order). */
  tag: string;
  attrs?: Record<string, unknown>;
  cache: KeptMarkup<K>;
  /** What the markup is made from (an entry, a value), and which of its forms. */
  of: K;
  variant?: string;
  /** The element's content; called only when it is not kept. */
  render: () => ComponentChildren;
}

/**
 * `<tag attrs>`, its content kept in `cache` for `of`, `</tag>`. Called as a function, not used as a
 * component: a component costs preact an instance of its own on every render, more than inserting
 * a kept markup does.
 */
export function kept<K>({ tag, attrs, cache, of, variant = '', render }: KeptProps<K>): VNode {
  if (!keepsMarkup()) return h(tag, attrs ?? null, render());
  // Raw on purpose: markup rendered by the same escaping renderer, for this very key and variant
  return h(tag, { ...attrs, dangerouslySetInnerHTML: { __html: insertMarkup(cache.markup(of, variant, render)) } });
}

export interface KeptListProps<K> {
  /** The element that holds the list, and its attributes. */
  tag: string;
  attrs?: Record<string, unknown>;
  cache: KeptMarkup<K>;
  /** One kept markup each, in this order. */
  items: readonly K[];
  /** An item's whole markup, its own element included; called only when it is not kept. */
  render: (item: K) => VNode;
}

/**
 * `<tag attrs>`, then each item's markup kept in `cache`, `</tag>`: a list's items inserted as
 * one, since even a kept item costs preact an element of its own to write (~1 µs each).
 */
export function keptList<K>({ tag, attrs, cache, items, render }: KeptListProps<K>): VNode {
  if (!keepsMarkup()) return h(tag, attrs ?? null, items.map(render));
  let html = '';
  for (const item of items) html += insertMarkup(cache.markup(item, '', () => render(item)));
  // Raw on purpose: each item's markup rendered by the same escaping renderer, for that very item
  return h(tag, { ...attrs, dangerouslySetInnerHTML: { __html: html } });
}
