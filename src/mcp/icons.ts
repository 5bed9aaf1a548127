import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';

/*
 * Icons of the MCP server and its tools (MCP 2025-11-25 `icons`), served by the service itself:
 * the specification asks hosts to take icons from the server's own origin, and a URL costs a
 * tenth of a data: URI in every tools/list a model reads. Plain SVG shapes, no script, no text.
 */

export const ICON_PATH_PREFIX = '/icons/';

const frame = (shapes: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1d4ed8" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${shapes}</svg>`;

/** Each icon's shapes, by name: the server's (a road sign), then one per kind of tool. */
const ICONS = {
  // A round road sign with a rising arrow: points coming back.
  server: frame('<circle cx="12" cy="12" r="10"/><path d="M8 14l4-4 4 4"/><path d="M12 10v8"/>'),
  // A magnifying glass.
  search: frame('<circle cx="11" cy="11" r="7"/><path d="M21 21l-4.3-4.3"/>'),
  // A check mark in a circle.
  check: frame('<circle cx="12" cy="12" r="10"/><path d="M8 12l3 3 5-6"/>'),
  // A building.
  centre: frame('<path d="M4 21V5l8-3 8 3v16"/><path d="M9 21v-5h6v5"/><path d="M8 8h2M14 8h2M8 12h2M14 12h2"/>'),
  // An open book.
  article: frame(
    '<path d="M2 4h7a3 3 0 0 1 3 3v14a2 2 0 0 0-2-2H2z"/><path d="M22 4h-7a3 3 0 0 0-3 3v14a2 2 0 0 1 2-2h8z"/>',
  ),
  // A bell: an alert.
  bell: frame('<path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 21h4"/>'),
  // A ticket: a place held.
  ticket: frame('<path d="M3 7h18v3a2 2 0 0 0 0 4v3H3v-3a2 2 0 0 0 0-4z"/><path d="M14 7v10"/>'),
} as const;

export type IconName = keyof typeof ICONS;

/** The `icons` of the server or a tool: one scalable SVG served from this service. */
export function iconsOf(publicBaseUrl: string, name: IconName): Array<{ src: string }> {
  // No mimeType or sizes: the answer's Content-Type says SVG, and an SVG fits any size (both optional).
  return [{ src: `${publicBaseUrl}${ICON_PATH_PREFIX}${name}.svg` }];
}

/** GET /icons/<name>.svg: the icons, cached a day, served so that no SVG can run anything. */
export function registerIcons(app: FastifyInstance): void {
  for (const [name, svg] of Object.entries(ICONS)) {
    const etag = `"${createHash('sha256').update(svg).digest('base64url').slice(0, 22)}"`;
    app.get(
      `${ICON_PATH_PREFIX}${name}.svg`,
      { schema: { hide: true }, config: NOT_RATE_LIMITED },
      (request, reply) => {
        reply
          .header('cache-control', 'public, max-age=86400')
          .header('etag', etag)
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
          .header('x-content-type-options', 'nosniff')
          .header('access-control-allow-origin', '*');
        if (request.headers['if-none-match'] === etag) return reply.code(304).send();
        return reply.type('image/svg+xml').send(svg);
      },
    );
  }
}
