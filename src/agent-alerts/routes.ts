import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { claimedAgentOf } from '../agent-claims/agent-routes.js';
import { alertCriteria } from '../alerts/criteria.js';
import { registerBearerAuth } from '../auth/bearer.js';
import { authUrls } from '../auth/urls.js';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { sendsMail } from '../mail/transport.js';
import { claimWatches } from './claim-watches.js';
import { removeWatch } from './remove-watch.js';
import { watchForPerson } from './watch.js';
import { WatchListSchema, WatchSchema } from './watch-view.js';

const Params = z.object({ id: z.uuid({ error: 'id must be an alert id (a UUID), as GET /api/watches gives' }) });

const REFUSED = {
  403: problemResponse(
    'Not allowed: no person claimed this client, or the token lacks the "alerts" scope; the detail says what to do (WWW-Authenticate: insufficient_scope).',
  ),
  503: problemResponse('This service sends no email, so it offers no alerts.'),
};

/**
 * /api/watches: an agent's alerts for the person who claimed it (the REST twin of the MCP tool
 * `watches`). Thin: the access check, the store and the refusals are in this folder's functions.
 */
export const watchRoutes: FastifyPluginAsyncZod = async (app) => {
  // The caller is the client of its access token, as on the MCP endpoint (a bad token: 401).
  registerBearerAuth(app, 'problem');
  const db = app.database.db;
  const resourceMetadata = authUrls(app.config.publicBaseUrl).mcpResourceMetadata;

  /** The claimed person, or the reply already sent (403 or 503). */
  const agentOf = claimedAgentOf({
    db,
    resourceMetadata,
    scope: 'alerts',
    unavailable: sendsMail(app.config.mail)
      ? undefined
      : { code: 'alerts_unavailable', detail: 'This service sends no email: it offers no alerts.' },
  });

  app.post(
    '/api/watches',
    {
      schema: {
        operationId: 'createWatch',
        summary: 'Alert the person who claimed this client',
        description:
          'Needs a claimed client’s token with the "alerts" scope. `{ "sessionId": … }` watches a full session and emails the person when a place frees up; `{ "search": { city | dept | near (+ radiusKm), from, to, maxPrice } }` emails them new sessions. The emails go to the person (never to the agent), each with a one-click unsubscribe; the person sees the alert in their area. The same request again gives the same alert.',
        tags: ['agents'],
        security: [{ agentToken: ['alerts'] }],
        body: alertCriteria,
        response: {
          200: WatchSchema,
          400: problemResponse('Bad criteria; `errors` names the field.'),
          ...REFUSED,
          404: problemResponse('No session with this id can be watched (unknown, cancelled or begun).'),
          409: problemResponse(
            'The session has places (book it now), the person has 10 running alerts, or already has this one from elsewhere.',
          ),
        },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      const site = { baseUrl: app.config.publicBaseUrl, platformName: app.config.platformName };
      const out = await watchForPerson(db, agent, request.body, {
        now: app.clock.now(),
        snapshot: app.catalogue.snapshot,
        ...site,
      });
      if (out.ok) return reply.header('cache-control', 'no-store').send(out.watch);
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
    '/api/watches',
    {
      schema: {
        operationId: 'listWatches',
        summary: 'The alerts this client made for its person',
        description:
          'The running alerts this client made under its current claim: id, what each watches, its state. Never the person’s email, nor alerts made elsewhere.',
        tags: ['agents'],
        security: [{ agentToken: ['alerts'] }],
        response: { 200: WatchListSchema, ...REFUSED },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      const watches = await claimWatches(db, agent.person.claimId, app.clock.now());
      return reply.header('cache-control', 'no-store').send({ watches });
    },
  );

  app.delete(
    '/api/watches/:id',
    {
      schema: {
        operationId: 'deleteWatch',
        summary: 'End one of this client’s alerts',
        description:
          'Ends an alert this client made under its claim (an `id` from `GET /api/watches`): the person gets no more email for it. Another client’s or another claim’s alert, or one already ended, is a 404. Needs a claimed token with `alerts`.',
        tags: ['agents'],
        security: [{ agentToken: ['alerts'] }],
        params: Params,
        response: {
          204: z.null().describe('Ended: the person gets no more email for it.'),
          400: problemResponse('The id is not an alert id (a UUID).'),
          ...REFUSED,
          404: problemResponse('No running alert of this claim has this id.'),
        },
      },
    },
    async (request, reply) => {
      const agent = await agentOf(request, reply);
      if (!agent) return reply;
      if (await removeWatch(db, agent.person.claimId, request.params.id)) return reply.code(204).send(null);
      return sendProblem(
        reply,
        problem(404, 'not_found', `No alert of this client for its person has the id ${request.params.id}.`, {
          instance: request.url,
        }),
      );
    },
  );
};
