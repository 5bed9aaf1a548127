import { McpServer } from '@modelcontextprotocol/server';
import { SERVICE_VERSION } from '../core/version.js';
import type { ToolContext } from './context.js';
import { iconsOf } from './icons.js';
import { registerPrompts } from './prompts.js';
import { ARTICLE_CACHE, LIVE_CACHE, registerResources } from './resources.js';
import { registerArticleTools } from './tools/articles.js';
import { registerCheckAvailability } from './tools/check-availability.js';
import { registerCheckEligibility } from './tools/check-eligibility.js';
import { registerGetCentre } from './tools/get-centre.js';
import { registerHolds } from './tools/holds.js';
import { registerSearchStages } from './tools/search-stages.js';
import { registerWatches } from './tools/watches.js';

export const MCP_SERVER_NAME = 'stages-recup-points';

/** Every tool the server registers (metrics label calls by these names; a test checks the list). */
export const MCP_TOOL_NAMES: ReadonlySet<string> = new Set([
  'search_stages',
  'check_availability',
  'get_centre',
  'list_articles',
  'get_article',
  'check_eligibility',
  'watches',
  'hold_place',
  'release_hold',
]);

/**
 * The tools whose answers the fast path may replay (src/mcp/fast-path.ts): every tool but
 * check_availability, the call made just before a person books, whose answer says when it was
 * computed (`checkedAt`): a replayed answer would carry the time of its first computation; and
 * check_eligibility, whose answer depends on the day and what a person told about their licence,
 * which no cache keeps; and watches, hold_place and release_hold, whose answers are one claimed
 * client's own and change what is stored.
 */
export const MCP_KEPT_TOOLS: ReadonlySet<string> = new Set(
  [...MCP_TOOL_NAMES].filter(
    (name) => !['check_availability', 'check_eligibility', 'watches', 'hold_place', 'release_hold'].includes(name),
  ),
);

const INSTRUCTIONS = `Real-time availability of two-day driving-licence points-recovery courses ("stages de récupération de points") in France, run by prefecture-approved centres. Use search_stages to find sessions by place, dates and budget; check_availability just before the user books, since places change; get_centre for one centre and its dates; list_articles and get_article for the rules (who may take a course, how often, the 48N letter, when points are credited). check_eligibility answers "can I, and by when?" from what the person knows, each rule with its source. The articles are also resources (stages://articles/{slug}, Markdown); stages://sessions/{id} and stages://centres/{idOrSlug} read a session or a centre as those tools do; the prompts find_course and explain_points_recovery start the two usual tasks. All data is public. Never try to book or pay: give the user the bookingUrl, where they book themselves. A client the user claimed (POST /api/oauth/claim) may act for them as they granted: with "hold", hold_place keeps one place for them for about 15 minutes (one per session, three at once) and gives a completeUrl where they book it themselves, release_hold gives it back; with "alerts", watches emails them alerts. A claimed client still never books, pays, or sees the person's name, email, phone, reservations or area. To follow a session's places, price and status: on revision 2026-07-28, subscriptions/listen with resourceSubscriptions ["stages://sessions/{id}"]; on earlier revisions (no subscriptions on this stateless endpoint), GET /api/stages/events?sessionId={id} (Server-Sent Events).`;

/**
 * A fresh MCP server over the shared tool context. The SDK's stateless pattern builds one per
 * HTTP request; everything costly (catalogue, articles, schemas) is built once and shared.
 * `subscribe`: whether the revision it serves can deliver resource updates here (the 2026-07-28
 * revision's subscriptions/listen, src/mcp/listen.ts); the initialize-era revisions cannot on this
 * stateless endpoint (docs/api.md, "Following a session").
 */
export function createMcpServer(ctx: ToolContext, { subscribe = false }: { subscribe?: boolean } = {}): McpServer {
  const server = new McpServer(
    {
      name: MCP_SERVER_NAME,
      title: `${ctx.platformName} — MCP`,
      version: SERVICE_VERSION,
      websiteUrl: ctx.publicBaseUrl,
      icons: iconsOf(ctx.publicBaseUrl, 'server'),
    },
    {
      // The lists never change while the service runs.
      capabilities: {
        tools: { listChanged: false },
        resources: { listChanged: false, subscribe },
        prompts: { listChanged: false },
        completions: {},
      },
      instructions: INSTRUCTIONS,
      cacheHints: {
        'tools/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'server/discover': { ttlMs: 3_600_000, cacheScope: 'public' },
        'prompts/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        'resources/list': ARTICLE_CACHE,
        'resources/templates/list': { ttlMs: 3_600_000, cacheScope: 'public' },
        // Per resource: articles an hour, sessions and centres (places left) never reused.
        'resources/read': LIVE_CACHE,
      },
    },
  );
  registerSearchStages(server, ctx);
  registerCheckAvailability(server, ctx);
  registerGetCentre(server, ctx);
  registerArticleTools(server, ctx);
  registerCheckEligibility(server, ctx);
  registerWatches(server, ctx);
  registerHolds(server, ctx);
  registerResources(server, ctx);
  registerPrompts(server, ctx);
  return server;
}
