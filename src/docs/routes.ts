import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { NOT_RATE_LIMITED } from '../http/rate-limit.js';

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;

export const DOCS_PATH = '/docs';

/**
 * Scripts and styles from this origin only. Swagger UI sets a few inline `style` attributes
 * (collapsing sections); allowing inline styles, never inline scripts, keeps them working.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// A constant document (nothing from a request or the catalogue goes into it); the versioned asset
// URLs let browsers keep the assets for a year.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Stages API — reference</title>
<link rel="stylesheet" href="${DOCS_PATH}/assets/swagger-ui.css?v=${SWAGGER_UI_VERSION}">
</head>
<body>
<noscript><p>This reference needs JavaScript. The machine-readable description is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/assets/swagger-ui-bundle.js?v=${SWAGGER_UI_VERSION}"></script>
<script src="${DOCS_PATH}/assets/init.js?v=${SWAGGER_UI_VERSION}"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  validatorUrl: null,
  tryItOutEnabled: true,
});
`;

const ASSETS: Record<string, { file?: string; body?: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'init.js': { body: INIT, type: 'text/javascript; charset=utf-8' },
};

/**
 * `GET /docs`: the OpenAPI description as a browsable reference (Swagger UI from its npm
 * package, every asset served from here: no CDN).
 */
export const docsRoutes: FastifyPluginAsync = async (app) => {
  const cache = new Map<string, Buffer>();
  const load = async (name: string): Promise<Buffer | undefined> => {
    if (!Object.hasOwn(ASSETS, name)) return undefined;
    const asset = ASSETS[name] as (typeof ASSETS)[string];
    let bytes = cache.get(name);
    if (!bytes) {
      bytes =
        asset.body !== undefined ? Buffer.from(asset.body) : await readFile(join(SWAGGER_UI_DIR, asset.file ?? ''));
      cache.set(name, bytes);
    }
    return bytes;
  };

  app.get(DOCS_PATH, { config: NOT_RATE_LIMITED, schema: { hide: true } }, async (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', DOCS_CSP)
      .header('cache-control', 'public, max-age=300')
      .send(PAGE),
  );

  app.get<{ Params: { name: string } }>(
    `${DOCS_PATH}/assets/:name`,
    { config: NOT_RATE_LIMITED, schema: { hide: true } },
    async (request, reply) => {
      const bytes = await load(request.params.name);
      if (!bytes) return reply.callNotFound();
      return reply
        .type((ASSETS[request.params.name] as { type: string }).type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(bytes);
    },
  );
};

/** GET /docs: the API reference page. */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  await app.register(docsRoutes);
}
