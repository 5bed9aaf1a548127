import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { Article } from '../articles/articles.js';
import { sessionAvailability } from '../catalogue/availability.js';
import { completeCentre } from './completions.js';
import type { ToolContext } from './context.js';
import { availabilityText } from './tools/check-availability.js';
import { CENTRE_SESSIONS_DEFAULT, centreDetails } from './tools/get-centre.js';

export const ARTICLE_URI_PREFIX = 'stages://articles/';
export const SESSION_URI_PREFIX = 'stages://sessions/';
export const SESSION_TEMPLATE = `${SESSION_URI_PREFIX}{id}`;
export const CENTRE_TEMPLATE = 'stages://centres/{idOrSlug}';

/**
 * Caching hints of the 2026-07-28 revision. Articles change with a deployment only: an hour, for
 * anyone. Sessions and centres carry places left, which change in real time: public, but never
 * to be reused (0 ms), as check_availability says.
 */
export const ARTICLE_CACHE = { ttlMs: 3_600_000, cacheScope: 'public' } as const;
export const LIVE_CACHE = { ttlMs: 0, cacheScope: 'public' } as const;

/** An article as one Markdown document: title, body and its legal sources. */
export function articleMarkdown(article: Article): string {
  const sources = article.sources.map((s) => `- ${s.url ? `[${s.title}](${s.url})` : s.title}`).join('\n');
  return `# ${article.title}\n\n${article.body}\n\n## Sources\n\n${sources}\n`;
}

/** A URI variable as text; a malformed %-escape is taken as it is (and then found nowhere). */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function one(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Two renderings of one answer: the JSON a program reads and the text a model reads. */
function both(uri: string, value: unknown, text: string) {
  return {
    contents: [
      { uri, mimeType: 'application/json', text: JSON.stringify(value) },
      { uri, mimeType: 'text/plain', text },
    ],
  };
}

/**
 * The articles as resources (Markdown, one per article, listed), and two templates: a session
 * (what check_availability answers) and a centre with its next sessions (what get_centre answers).
 * Only public catalogue data: nothing about reservations or the people who make them.
 */
export function registerResources(server: McpServer, ctx: ToolContext): void {
  for (const summary of ctx.articles.list({ limit: Number.MAX_SAFE_INTEGER })) {
    const uri = `${ARTICLE_URI_PREFIX}${summary.slug}`;
    server.registerResource(
      summary.slug,
      uri,
      {
        title: summary.title,
        description: summary.summary,
        mimeType: 'text/markdown',
        annotations: { audience: ['user', 'assistant'], lastModified: `${summary.updatedAt}T00:00:00Z` },
        cacheHint: ARTICLE_CACHE,
      },
      async () => {
        const article = ctx.articles.get(summary.slug);
        if (!article) throw new ResourceNotFoundError(uri);
        return { contents: [{ uri, mimeType: 'text/markdown', text: articleMarkdown(article) }] };
      },
    );
  }

  server.registerResource(
    'session',
    new ResourceTemplate(SESSION_TEMPLATE, { list: undefined }),
    {
      title: 'A course session, right now',
      description:
        'One session by its id (from search_stages or get_centre): status (available, full, past, cancelled), places left, price, course number, bookingUrl and centre. The same answer as the check_availability tool: JSON, then the readable text.',
      mimeType: 'application/json',
      cacheHint: LIVE_CACHE,
    },
    async (uri, variables) => {
      const id = decoded(one(variables.id));
      const out = sessionAvailability(ctx.catalogue.snapshot, id, ctx.clock.now());
      if (!out)
        throw new ResourceNotFoundError(
          uri.href,
          `No session has the id "${id.slice(0, 100)}". Session ids come from search_stages or get_centre.`,
        );
      return both(uri.href, out, availabilityText(out));
    },
  );

  server.registerResource(
    'centre',
    new ResourceTemplate(CENTRE_TEMPLATE, {
      list: undefined,
      complete: { idOrSlug: (value) => completeCentre(ctx.catalogue.snapshot, value) },
    }),
    {
      title: 'A centre and its next sessions',
      description: `One prefecture-approved centre by id or slug: address, department, approval number, page URL and its next ${CENTRE_SESSIONS_DEFAULT} sessions with places left. The same answer as the get_centre tool with its defaults: JSON, then the readable text.`,
      mimeType: 'application/json',
      cacheHint: LIVE_CACHE,
    },
    async (uri, variables) => {
      const idOrSlug = decoded(one(variables.idOrSlug));
      const found = centreDetails(ctx, idOrSlug, CENTRE_SESSIONS_DEFAULT, false);
      if (!found)
        throw new ResourceNotFoundError(
          uri.href,
          `No centre has the id or slug "${idOrSlug.slice(0, 100)}". Centres appear in the results of search_stages.`,
        );
      return both(uri.href, found.value, found.text);
    },
  );
}
