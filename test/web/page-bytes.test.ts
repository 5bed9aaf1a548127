import { type FunctionComponent, h, type VNode } from 'preact';
import { describe, expect, it, vi } from 'vitest';
import { KeptMarkup, kept, keptList } from '../../src/web/kept-markup.js';
import { insertMarkup, Markup, renderPageBytes } from '../../src/web/page-bytes.js';
import { renderPage } from '../../src/web/render.js';

/*
 * A page rendered as bytes (kept markups copied as UTF-8 pieces, web/page-bytes.ts) must be byte for
 * byte the page rendered as one string, then encoded.
 */

/** Text no page should lose or mangle: accents, typographic quotes, astral characters, line separators. */
const TRICKY = 'Saint-Étienne – l’été 😀 \u2028 \u2029 <b>&amp;"\'';

/** `render` as a component of its own, called while the page renders. */
const element = (render: () => VNode): VNode => h(render as FunctionComponent, {});

/** `page` (a component: its markups are inserted while the page renders) as bytes, twice, and as a string. */
function expectSameBytes(page: () => VNode): void {
  const reference = Buffer.from(renderPage(element(page)));
  const copied = vi.spyOn(Markup.prototype, 'bytes', 'get');
  // First rendering (markups rendered and kept), then again (copied from what was kept).
  expect(renderPageBytes(element(page)).equals(reference)).toBe(true);
  expect(renderPageBytes(element(page)).toString()).toBe(reference.toString());
  expect(copied).toHaveBeenCalled();
  copied.mockRestore();
}

describe('pages rendered as bytes', () => {
  it('are the page rendered as one string, with markups inserted in any order and any number', () => {
    const cards = new KeptMarkup<number>(1024 * 1024);
    const sections = new KeptMarkup<string>(1024 * 1024);
    const items = Array.from({ length: 25 }, (_, i) => i);
    const jsonLd = new Markup('{"name":"\\u003c/script\\u003e l’été"}');
    // Markups made before the page's own elements (as a layout's header is made after its children).
    const page = () => {
      const children = [
        h('h1', null, TRICKY),
        keptList({
          tag: 'ol',
          cache: cards,
          items,
          render: (i) => h('li', { title: TRICKY }, `n° ${i} ${TRICKY}`) as VNode,
        }),
        h('p', null, '<!-- not a placeholder -->'),
      ];
      return h('html', null, [
        h(
          'head',
          null,
          h('script', { type: 'application/ld+json', dangerouslySetInnerHTML: { __html: insertMarkup(jsonLd) } }),
        ),
        kept({ tag: 'header', cache: sections, of: 'header', render: () => h('b', null, TRICKY) }),
        h('main', null, children),
        kept({ tag: 'footer', attrs: { class: 'site' }, cache: sections, of: 'footer', render: () => 'pied' }),
      ]);
    };
    expectSameBytes(page);
  });

  it('render a markup kept inside another kept markup as text of the outer one', () => {
    const outer = new KeptMarkup<string>(1024 * 1024);
    const inner = new KeptMarkup<string>(1024 * 1024);
    const page = () =>
      h(
        'main',
        null,
        kept({
          tag: 'section',
          cache: outer,
          of: 'outer',
          render: () => [
            h('h2', null, 'dehors'),
            kept({ tag: 'div', cache: inner, of: 'inner', render: () => TRICKY }),
          ],
        }),
      );
    expectSameBytes(page);
  });

  it('are right for pages larger than the buffers they are first encoded in', () => {
    const big = new Markup(`<p>${'é'.repeat(100_000)}</p>`);
    const page = () =>
      h('main', null, [
        h('p', null, '’'.repeat(60_000)),
        h('div', { dangerouslySetInnerHTML: { __html: insertMarkup(big) } }),
        h('p', null, TRICKY),
      ]);
    expectSameBytes(page);
  });

  it('refuse a markup inserted as text, where its placeholder would be escaped', () => {
    const markup = new Markup('<i>x</i>');
    const page = () => h('p', null, insertMarkup(markup));
    expect(() => renderPageBytes(element(page))).toThrow(/outside dangerouslySetInnerHTML/);
  });
});
