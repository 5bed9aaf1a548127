import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { claimedAgentOf } from '../agent-claims/agent-routes.js';
import { registerBearerAuth } from '../auth/bearer.js';
import { authUrls } from '../auth/urls.js';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { claimHold } from './claim-hold.js';
import { releaseHold } from './end-hold.js';
import { holdFields } from './hold-input.js';
import { HoldSchema } from './hold-view.js';
import { takeHold } from './take-hold.js';

const SessionParams = z.object({
  id: z.uuid({ error: 'id must be a session id (a UUID), as GET /api/stages gives' }),
});
const HoldParams = z.object({ id: holdFields.holdId });
// No body at all is a hold without a key.
const HoldBody = z.object({ idempotencyKey: holdFields.idempotencyKey.optional() }).nullish();

const REFUSED = {
  403: problemResponse(
    'Not allowed: no person claimed this client, or the token lacks the "hold" scope; the detail says what to do (WWW-Authenticate: insufficient_scope).',
  ),
  503: problemResponse('This service has no booking pages of its own (SITE=off), so it holds no places.'),
};

/**
 * Holds: a claimed agent with `hold` keeps one place of a session for its person, who books it on
 * the hold's completeUrl (the REST twin of the MCP tools hold_place and release_hold). Thin: the
 * access check, the store and the refusals are in this folder's functions.
 */
export const holdRoutes: FastifyPluginAsyncZod = async (app) => {
  registerBearerAuth(app, 'problem');
  const db = app.database.db;
  const baseUrl = app.config.publicBaseUrl;
  const resourceMetadata = authUrls(baseUrl).mcpResourceMetadata;

  /** The claimed person, or the reply already sent (403 or 503). */
  const agentOf = claimedAgentOf({
    db,
    resourceMetadata,
    scope: 'hold',
    unavailable: app.config.site
      ? undefined
      : { code: 'holds_unavailable', detail: 'This service has no booking pages of its own: it holds no places.' },
  });

  function notFound(request: FastifyRequest, reply: FastifyReply, id: string) {
    return sendProblem(
      reply,
      problem(404, 'not_found', `No hold of this client for its person has the id ${id}.`, { instance: request.url }),
    );
  }

  app.post(
    '/api/stages/:id/holds',
    {
      schema: {
        operationId: 'holdPlace',
        summary: 'Hold a place of this session for the person who claimed this client',
        description:
          'Needs a claimed client’s token with the "hold" scope. Takes one place now (it is off sale at once, never oversold) for HOLD_TTL_SECONDS (15 minutes by default) and answers the hold: give its `completeUrl` to the person, who enters their details and books there themselves; no personal data passes through you, and you never book or pay. One hold per person and session, three per person at once, only while the session has places. The same `idempotencyKey` again gives the same hold back. An unbooked hold gives its place back by itself at `expiresAt`.',
        tags: ['agents'],
        security: [{ agentToken: ['hold'] }],
        params: SessionParams,
        body: HoldBody,
        response: {
          201: HoldSchema.describe('The place is held.'),
          200: HoldSchema.describe('The hold this idempotencyKey made before.'),
          400: problemResponse('Bad session id or idempotencyKey; `errors` names the field.'),
          ...REFUSED,
          404: problemResponse('No upcoming session has this id.'),
          409: problemResponse(
            '`code` says which: no_places (full), session_closed, already_held (one per person and session), too_many_holds (three at once), idempotency_key_reused (another session).',
          ),
        },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      const sessionId = request.params.id;
      if (!app.catalogue.snapshot.sessionsById.get(sessionId))
        return sendProblem(
          reply,
          problem(404, 'not_found', `No upcoming session has the id ${sessionId}: use GET /api/stages.`, {
            instance: request.url,
            errors: [{ name: 'id', reason: 'no upcoming session has this id' }],
          }),
        );
      const out = await takeHold(
        db,
        agent,
        { sessionId, idempotencyKey: request.body?.idempotencyKey },
        { now: app.clock.now(), ttlSeconds: app.config.holds.ttlSeconds, baseUrl },
      );
      if (out.ok) {
        // This instance shows the place off sale before answering; the others follow within a second.
        if (!out.replayed) await app.catalogue.refresh();
        return reply
          .code(out.replayed ? 200 : 201)
          .header('cache-control', 'no-store')
          .header('location', `/api/holds/${out.hold.holdId}`)
          .send(out.hold);
      }
      return sendProblem(
        reply,
        problem(out.status, out.code, out.detail, {
          instance: request.url,
          ...(out.field ? { errors: [{ name: out.field, reason: out.detail }] } : {}),
        }),
      );
    },
  );

  app.get(
    '/api/holds/:id',
    {
      schema: {
        operationId: 'getHold',
        summary: 'The state of one of this client’s holds',
        description:
          'A hold this client made under its current claim: active (the place is held until expiresAt), completed (the person booked it), released or expired (the place went back on sale). Never anything of the person. Another client’s or another claim’s hold is a 404. Needs a claimed token with "hold".',
        tags: ['agents'],
        security: [{ agentToken: ['hold'] }],
        params: HoldParams,
        response: {
          200: HoldSchema,
          400: problemResponse('The id is not a hold id (hld_…).'),
          ...REFUSED,
          404: problemResponse('No hold of this claim has this id.'),
        },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      const hold = await claimHold(db, agent.person.claimId, request.params.id, { now: app.clock.now(), baseUrl });
      if (!hold) return notFound(request, reply, request.params.id);
      return reply.header('cache-control', 'no-store').send(hold);
    },
  );

  app.delete(
    '/api/holds/:id',
    {
      schema: {
        operationId: 'releaseHold',
        summary: 'Give one of this client’s held places back',
        description:
          'Releases an active hold this client made under its claim: the place goes back on sale at once, and the answer is the hold, now released. A hold already released or expired is answered as it is (nothing more to give back); one the person booked is a 409 (the place is their reservation’s: only they can cancel it). Another client’s or claim’s hold is a 404. Needs a claimed token with "hold".',
        tags: ['agents'],
        security: [{ agentToken: ['hold'] }],
        params: HoldParams,
        response: {
          200: HoldSchema.describe('The hold, released (or already ended).'),
          400: problemResponse('The id is not a hold id (hld_…).'),
          ...REFUSED,
          404: problemResponse('No hold of this claim has this id.'),
          409: problemResponse('The person booked the held place: it is their reservation now (code hold_completed).'),
        },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      const out = await releaseHold(db, agent.person.claimId, request.params.id, { now: app.clock.now(), baseUrl });
      if (out.kind === 'unknown') return notFound(request, reply, request.params.id);
      if (out.kind === 'completed')
        return sendProblem(
          reply,
          problem(
            409,
            'hold_completed',
            'The person booked this place: it is their reservation now, which only they (or the centre) can cancel.',
            { instance: request.url },
          ),
        );
      if (out.kind === 'released') await app.catalogue.refresh();
      return reply.header('cache-control', 'no-store').send(out.hold);
    },
  );
};
