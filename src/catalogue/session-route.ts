import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problem, problemResponse, sendProblem } from '../http/problem.js';
import { SessionAvailabilitySchema, sessionAvailability } from './availability.js';

const Params = z.object({
  id: z
    .uuid({ error: 'id must be a session id (a UUID), as given in the data of GET /api/stages' })
    .describe('The session id, as given by GET /api/stages (or the MCP tools).'),
});

/**
 * GET /api/stages/{id}: one session right now, the very answer of the check_availability MCP
 * tool (one domain function), for clients that speak REST only.
 */
export const sessionRoute: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/stages/:id',
    {
      schema: {
        operationId: 'getSessionAvailability',
        summary: 'One session, right now',
        description:
          "Whether one session can still be booked at this moment: status (available, full, past or cancelled), places left, effective price, its course identification number and the centre. Ask it just before sending a person to book, since places change in real time. Booking is done by the human user on the session's bookingUrl.",
        tags: ['stages'],
        params: Params,
        response: {
          200: SessionAvailabilitySchema,
          400: problemResponse('The id is not a session id (a UUID); `errors` names it.'),
          404: problemResponse('No session has this id (it may have been removed).'),
          429: problemResponse('Rate limit reached; retry after the number of seconds in Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const found = sessionAvailability(app.catalogue.snapshot, request.params.id, app.clock.now());
      if (!found) {
        return sendProblem(
          reply,
          problem(
            404,
            'not_found',
            `No session has the id ${request.params.id}. It may have been removed; search GET /api/stages for current sessions.`,
            { instance: request.url.split('?')[0] },
          ),
        );
      }
      // Places change at any moment: a cache may keep it only to revalidate it.
      return reply.header('cache-control', 'no-cache').send(found);
    },
  );
};
