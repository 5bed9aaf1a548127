import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { claimWatches } from '../../agent-alerts/claim-watches.js';
import { removeWatch } from '../../agent-alerts/remove-watch.js';
import { watchForPerson } from '../../agent-alerts/watch.js';
import type { Watch } from '../../agent-alerts/watch-view.js';
import { agentAccess } from '../../agent-claims/agent-access.js';
import { type AlertCriteria, alertCriteria } from '../../alerts/criteria.js';
import { ANONYMOUS, type Identity } from '../../auth/identity.js';
import { argumentsObject } from '../../catalogue/fields.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { result, type ToolContext, toolError } from '../context.js';
import { iconsOf } from '../icons.js';

const ACTIONS = ['session', 'search', 'list', 'remove'] as const;

// Plain types: the values are checked by the alerts' own schema (alertCriteria), as on REST.
const Input = argumentsObject({
  action: z.enum(ACTIONS),
  sessionId: z.string().optional(),
  city: z.string().optional(),
  dept: z.string().optional(),
  near: z.string().optional().describe('Town, postal code or "lat,lng".'),
  radiusKm: z.number().optional(),
  from: z.string().optional().describe('YYYY-MM-DD, first days.'),
  to: z.string().optional(),
  maxPrice: z.number().optional(),
  alertId: z.string().optional(),
});
type Args = z.output<typeof Input>;

const SEARCH_KEYS = ['city', 'dept', 'near', 'radiusKm', 'from', 'to', 'maxPrice'] as const;

function watchLine(w: Watch): string {
  const what = w.sessionId ? `session ${w.sessionId}` : `search ${JSON.stringify(w.search)}`;
  return `${w.id}: ${what}, until ${w.endsAt}${w.lastSentAt ? `, last emailed ${w.lastSentAt}` : ''}`;
}

/** The criteria of a `session` or `search` call, or the reason they are wrong. */
function criteriaOf(args: Args): AlertCriteria | string {
  const raw =
    args.action === 'session'
      ? { sessionId: args.sessionId }
      : { search: Object.fromEntries(SEARCH_KEYS.filter((k) => args[k] !== undefined).map((k) => [k, args[k]])) };
  const parsed = alertCriteria.safeParse(raw);
  if (parsed.success) return parsed.data;
  // The union's branch for this action holds the useful message.
  const issues = parsed.error.issues.flatMap((i) => (i.code === 'invalid_union' ? i.errors.flat() : [i]));
  const issue = issues.find((i) => i.path.at(-1) !== undefined && i.path[0] !== 'search') ?? issues.at(-1);
  return `Invalid argument ${String(issue?.path.at(-1) ?? args.action)}: ${issue?.message ?? 'bad value'}`;
}

/**
 * `watches`: alerts emailed to the person who claimed this client (the MCP twin of /api/watches).
 * One tool with an action rather than four, to keep tools/list small (test/mcp/tool-list.test.ts).
 */
export function registerWatches(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'watches',
    {
      title: 'Alerts for your person',
      icons: iconsOf(ctx.publicBaseUrl, 'bell'),
      description:
        'Claimed clients with "alerts" (POST /api/oauth/claim): emails your person, never you. action: session (full sessionId: a place frees), search (new sessions: city, dept or near+radiusKm; from, to, maxPrice), list, remove (alertId).',
      inputSchema: cachedJsonSchema(Input),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      if (!ctx.sendsMail) return toolError('This service sends no email: it offers no alerts.');
      const identity = (extra.http?.authInfo?.extra?.identity as Identity | undefined) ?? ANONYMOUS;
      const access = await agentAccess(ctx.db, identity, 'alerts');
      if (!access.ok) return toolError(`${access.error.code} (scope "alerts"): ${access.error.description}`);
      const { agent } = access;
      const now = ctx.clock.now();
      if (args.action === 'list') {
        const watches = await claimWatches(ctx.db, agent.person.claimId, now);
        return result(
          { watches },
          watches.length ? watches.map(watchLine).join('\n') : 'No running alert made by this client.',
        );
      }
      if (args.action === 'remove') {
        const id = args.alertId ?? '';
        const removed = /^[0-9a-f-]{36}$/i.test(id) && (await removeWatch(ctx.db, agent.person.claimId, id));
        return removed
          ? result({ removed: id }, `Alert ${id} ended: the person gets no more email for it.`)
          : toolError(`No alert of this client for its person has the id "${id.slice(0, 40)}" (see action "list").`);
      }
      const criteria = criteriaOf(args);
      if (typeof criteria === 'string') return toolError(criteria);
      const out = await watchForPerson(ctx.db, agent, criteria, {
        now,
        snapshot: ctx.catalogue.snapshot,
        baseUrl: ctx.publicBaseUrl,
        platformName: ctx.platformName,
      });
      if (!out.ok) return toolError(`${out.code}: ${out.detail}`);
      return result(
        { watch: out.watch },
        `Alert ${out.watch.id} running: ${watchLine(out.watch)}. The person is emailed, and sees it in their area.`,
      );
    },
  );
}
