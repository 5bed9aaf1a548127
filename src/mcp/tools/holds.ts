import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { agentAccess } from '../../agent-claims/agent-access.js';
import { releaseHold } from '../../agent-holds/end-hold.js';
import { holdFields } from '../../agent-holds/hold-input.js';
import type { Hold } from '../../agent-holds/hold-view.js';
import { takeHold } from '../../agent-holds/take-hold.js';
import { ANONYMOUS, type Identity } from '../../auth/identity.js';
import { argumentsObject, sessionIdField } from '../../catalogue/fields.js';
import { cachedJsonSchema } from '../cached-json-schema.js';
import { result, type ToolContext, toolError } from '../context.js';
import { iconsOf } from '../icons.js';

// A plain string, checked by the handler (as watches does): the uuid pattern, written out in
// check_availability already, would cost tools/list 170 bytes more.
const HoldInput = argumentsObject({
  sessionId: z.string().describe('From search_stages.'),
  idempotencyKey: holdFields.idempotencyKey.optional(),
});
const ReleaseInput = argumentsObject({ holdId: holdFields.holdId });

/** Not read-only (a place changes hands), not destructive, repeatable with the same arguments. */
const HOLD_HINTS = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function holdText(h: Hold): string {
  switch (h.state) {
    case 'active':
      return `Place held (hold ${h.holdId}) until ${h.expiresAt}. Give the person this page, where they book it themselves: ${h.completeUrl}`;
    case 'completed':
      return `Hold ${h.holdId}: the person booked this place.`;
    default:
      return `Hold ${h.holdId} ${h.state}: its place is back on sale.`;
  }
}

/** The person this request's client may hold places for, or the tool result saying why not. */
async function holder(ctx: ToolContext, extra: { http?: { authInfo?: { extra?: Record<string, unknown> } } }) {
  if (ctx.holdTtlSeconds === undefined)
    return {
      refused: toolError('holds_unavailable: this service has no booking pages of its own: it holds no places.'),
    };
  const identity = (extra.http?.authInfo?.extra?.identity as Identity | undefined) ?? ANONYMOUS;
  const access = await agentAccess(ctx.db, identity, 'hold');
  if (!access.ok) return { refused: toolError(`${access.error.code} (scope "hold"): ${access.error.description}`) };
  return { agent: access.agent, ttlSeconds: ctx.holdTtlSeconds };
}

/**
 * `hold_place` and `release_hold`: a claimed client with "hold" keeps one place of a session for
 * its person, who books it on completeUrl (the MCP twins of /api/stages/{id}/holds and
 * /api/holds/{id}). The hold's state is in every answer; hold_place again with its key reads it.
 */
export function registerHolds(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    'hold_place',
    {
      title: 'Hold a place',
      icons: iconsOf(ctx.publicBaseUrl, 'ticket'),
      description:
        'Claimed clients with "hold": holds 1 place ~15 min for your person, who books it at completeUrl (never you). 1 per session, 3 at once.',
      inputSchema: cachedJsonSchema(HoldInput),
      annotations: HOLD_HINTS,
    },
    async (args, extra) => {
      const who = await holder(ctx, extra);
      if (!who.agent) return who.refused;
      const id = sessionIdField.safeParse(args.sessionId);
      if (!id.success) return toolError(`Invalid argument sessionId: ${id.error.issues[0]?.message}`);
      if (!ctx.catalogue.snapshot.sessionsById.get(args.sessionId))
        return toolError(`not_found: no upcoming session has the id ${args.sessionId}: use search_stages.`);
      const out = await takeHold(ctx.db, who.agent, args, {
        now: ctx.clock.now(),
        ttlSeconds: who.ttlSeconds,
        baseUrl: ctx.publicBaseUrl,
      });
      if (!out.ok) return toolError(`${out.code}: ${out.detail}`);
      if (!out.replayed) await ctx.catalogue.refresh();
      return result({ hold: out.hold }, holdText(out.hold));
    },
  );
  server.registerTool(
    'release_hold',
    {
      title: 'Release a hold',
      icons: iconsOf(ctx.publicBaseUrl, 'ticket'),
      description: 'Puts a place you held back on sale now.',
      inputSchema: cachedJsonSchema(ReleaseInput),
      annotations: HOLD_HINTS,
    },
    async (args, extra) => {
      const who = await holder(ctx, extra);
      if (!who.agent) return who.refused;
      const out = await releaseHold(ctx.db, who.agent.person.claimId, args.holdId, {
        now: ctx.clock.now(),
        baseUrl: ctx.publicBaseUrl,
      });
      if (out.kind === 'unknown') return toolError(`not_found: no hold of this client has the id ${args.holdId}.`);
      if (out.kind === 'completed')
        return toolError('hold_completed: the person booked this place; only they or the centre can cancel it.');
      if (out.kind === 'released') await ctx.catalogue.refresh();
      return result({ hold: out.hold }, holdText(out.hold));
    },
  );
}
